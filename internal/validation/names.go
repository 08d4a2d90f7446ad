package validation

import (
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

// fileNameHexDigits is how much of the trace hash names the file (docs/protocol.md §7:
// "val-{hash-prefix}.md", 12 hex digits in practice).
const fileNameHexDigits = 12

// ID returns the ID of the trace with this hash: its first 12 hex
// digits, lower case. It names the trace's validation file (FileName) and
// its item in the node's validation queue, so the rule lives here alone.
// Anything that is not a hex digit is dropped, so a malformed hash can
// never make a path.
func ID(traceHash manifest.Hash) string {
	return traceHash.Hex(fileNameHexDigits)
}

// FileName returns the file name of a validation of the trace with this
// hash: "val-", its ID and ".md".
func FileName(traceHash manifest.Hash) string {
	return "val-" + ID(traceHash) + ".md"
}

// clip shortens peer text quoted in an error.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// oneLine joins runs of white space, newlines included, into one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("validation: "+format, args...)
}
