package manifest

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// tableHeader is the canonical header and separator of docs/protocol.md §3.
const tableHeader = "| seq | hash | file | type | status | submitted |\n" +
	"|-----|------|------|------|--------|-----------|\n"

// Format writes m in the canonical layout of docs/protocol.md §3, rows newest first.
// The declared sequence is never written lower than the highest row, since
// sequence is the highest seq ever published. The same Manifest always gives
// the same bytes.
func (m *Manifest) Format() []byte {
	var b bytes.Buffer
	b.WriteString("# MANIFEST\n\n")
	writeKey(&b, "agent", m.Agent)
	writeKey(&b, "url", m.URL)
	writeKey(&b, "updated", FormatTime(m.Updated))
	fmt.Fprintf(&b, "sequence: %d\n", max(m.Sequence, m.MaxSeq()))
	if r := oneLine(m.Rules); r != "" {
		writeKey(&b, "rules", r)
	}
	if pg := oneLine(m.Pages); pg != "" {
		writeKey(&b, "pages", pg)
	}
	for _, a := range m.Archives {
		fmt.Fprintf(&b, "%s: %s\n", archiveKey, a)
	}
	b.WriteString("\n## Traces\n\n")
	b.WriteString(tableHeader)
	for _, e := range m.newestFirst() {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s |\n",
			e.Seq, cell(string(e.Hash)), cell(e.File), cell(e.Type), cell(string(e.Status)), FormatTime(e.Submitted))
	}
	return b.Bytes()
}

func (m *Manifest) newestFirst() []Entry {
	rows := append([]Entry(nil), m.Entries...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Seq > rows[j].Seq })
	return rows
}

func writeKey(b *bytes.Buffer, key, value string) {
	v := oneLine(value)
	if v == "" {
		fmt.Fprintf(b, "%s:\n", key)
		return
	}
	fmt.Fprintf(b, "%s: %s\n", key, v)
}

// oneLine keeps a value on its line.
func oneLine(s string) string {
	return strings.TrimSpace(strings.NewReplacer("\r", " ", "\n", " ").Replace(s))
}

// cell keeps a value inside its table cell.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}
