package actions

import "strings"

// maxCell bounds one table cell: error messages from peers can be long.
const maxCell = 200

// Cell makes s safe inside a markdown table cell: one line, pipes escaped,
// HTML angle brackets neutralised, at most maxCell runes.
func Cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxCell {
		s = string(r[:maxCell]) + "…"
	}
	return strings.NewReplacer("\\", "\\\\", "|", "\\|", "<", "&lt;", ">", "&gt;").Replace(s)
}

// Table renders a markdown table. Cells are passed through Cell.
func Table(header []string, rows [][]string) string {
	var b strings.Builder
	writeRow(&b, header)
	b.WriteString("|")
	for range header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		writeRow(&b, r)
	}
	return b.String()
}

func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(Cell(c))
		b.WriteString(" |")
	}
	b.WriteString("\n")
}
