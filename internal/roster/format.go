package roster

import (
	"bytes"
	"strings"
)

// formatHeader is the comment block of the seed's AGENTS.md.
const formatHeader = "# Known Agents\n# name | trace_url | joined\n"

// Format writes agents in the seed's pipe layout, one per line in the
// given order, unaligned (aligned columns would make one new long name
// rewrite every line). Signal and tier are not part of the seed's layout and
// are not written. Values are kept on their line and inside their cell.
func Format(agents []Agent) []byte {
	var b bytes.Buffer
	b.WriteString(formatHeader)
	for _, a := range agents {
		line := cell(a.Name) + " | " + cell(a.URL) + " | " + cell(a.Joined)
		b.WriteString(strings.TrimRight(line, " |"))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func cell(s string) string {
	r := strings.NewReplacer("\r", " ", "\n", " ", "|", " ")
	return strings.TrimSpace(r.Replace(s))
}
