package roster

import "strings"

// columns says which cell holds which field; -1 when absent.
type columns struct {
	name, url, joined, signal, tier int
}

// pipeColumns is the seed's layout: name | trace_url | joined.
var pipeColumns = &columns{name: 0, url: 1, joined: 2, signal: -1, tier: -1}

// headerColumns recognises a header row by its names: one naming both the
// agent and its URL.
func headerColumns(cells []string) (*columns, bool) {
	c := &columns{name: -1, url: -1, joined: -1, signal: -1, tier: -1}
	for i, cell := range cells {
		switch strings.ToLower(strings.Trim(cell, "*` ")) {
		case "agent", "name":
			c.name = first(c.name, i)
		case "url", "trace_url", "trace url":
			c.url = first(c.url, i)
		case "joined":
			c.joined = first(c.joined, i)
		case "signal":
			c.signal = first(c.signal, i)
		case "tier":
			c.tier = first(c.tier, i)
		}
	}
	return c, c.name >= 0 && c.url >= 0
}

func first(old, i int) int {
	if old >= 0 {
		return old
	}
	return i
}

// agent reads the fields of one row; missing cells read as "".
func (c *columns) agent(cells []string) Agent {
	get := func(i int) string {
		if i < 0 || i >= len(cells) {
			return ""
		}
		return strings.Trim(cells[i], "*` ")
	}
	return Agent{
		Name: get(c.name), URL: linkTarget(get(c.url)), Joined: get(c.joined),
		Signal: get(c.signal), Tier: get(c.tier),
	}
}

// linkTarget returns the target of "[text](target)" or "<target>", or s.
func linkTarget(s string) string {
	if strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") {
		return s[1 : len(s)-1]
	}
	if i := strings.Index(s, "]("); strings.HasPrefix(s, "[") && i > 0 && strings.HasSuffix(s, ")") {
		return s[i+2 : len(s)-1]
	}
	return s
}

// isSeparator reports whether line is a table's separator row.
func isSeparator(line string) bool {
	dashes := false
	for _, r := range line {
		switch r {
		case '-':
			dashes = true
		case '|', ':', ' ', '\t':
		default:
			return false
		}
	}
	return dashes && strings.Contains(line, "|")
}

// splitCells splits a line on "|", dropping the outer pipes of a table row.
func splitCells(line string) []string {
	s := strings.TrimPrefix(line, "|")
	s = strings.TrimSuffix(s, "|")
	cells := strings.Split(s, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}
