package manifest

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/meshnode/meshnode/internal/peertext"
)

// field is a column of the manifest table.
type field int

const (
	colSeq field = iota
	colHash
	colFile
	colType
	colStatus
	colSubmitted
	colTitle
	colTrace
	colCategory
	numFields
)

// columnNames maps header names, lowercased, to fields. Columns are found by
// name because peers order and name them differently ("timestamp" for
// "submitted", the legacy "Trace" and "Date" columns).
var columnNames = map[string]field{
	"seq": colSeq, "sequence": colSeq, "#": colSeq,
	"hash": colHash, "sha256": colHash, "sha-256": colHash,
	"file": colFile, "path": colFile,
	"type":      colType,
	"status":    colStatus,
	"submitted": colSubmitted, "timestamp": colSubmitted, "date": colSubmitted,
	"title":    colTitle,
	"trace":    colTrace,
	"category": colCategory,
}

// columns is a recognised header: the index of each field, -1 when absent.
type columns struct {
	index [numFields]int
	width int
}

// headerColumns recognises a header row: one with a hash column and a seq or
// trace column, and no cell that is itself a hash.
func headerColumns(cells []string) (*columns, bool) {
	c := &columns{width: len(cells)}
	for i := range c.index {
		c.index[i] = -1
	}
	for i, cell := range cells {
		if _, err := NormalizeHash(cell); err == nil {
			return nil, false
		}
		f, ok := columnNames[toLowerTrim(strings.Trim(cell, "*` "))]
		if ok && c.index[f] < 0 {
			c.index[f] = i
		}
	}
	ok := c.index[colHash] >= 0 && (c.index[colSeq] >= 0 || c.index[colTrace] >= 0)
	return c, ok
}

// get returns the cell of field f, or "" when the header has no such column.
func (c *columns) get(cells []string, f field) string {
	if i := c.index[f]; i >= 0 && i < len(cells) {
		return cells[i]
	}
	return ""
}

// row turns the cells of one data row into an Entry, or reports why not.
func (p *parser) row(n int, cells []string) (Entry, bool) {
	c := p.cols
	if len(cells) != c.width {
		p.problem(n, "row has %d cells, header has %d", len(cells), c.width)
		return Entry{}, false
	}
	seq, ok := rowSeq(c, cells)
	if !ok {
		p.problem(n, "seq %q is not a number from 1 to %d", clip(c.get(cells, colSeq)+c.get(cells, colTrace)), maxSeqValue)
		return Entry{}, false
	}
	hash, err := NormalizeHash(c.get(cells, colHash))
	if err != nil {
		p.problem(n, "%v", err)
		return Entry{}, false
	}
	e := Entry{
		Seq: seq, Hash: hash,
		File:     linkTarget(plain(c.get(cells, colFile))),
		Type:     meta(c.get(cells, colType)),
		Status:   Status(meta(c.get(cells, colStatus))),
		Title:    peertext.Clean(rowTitle(c, cells)),
		Category: meta(c.get(cells, colCategory)),
	}
	if s := plain(c.get(cells, colSubmitted)); s != "" {
		if e.Submitted, err = ParseTime(s); err != nil {
			p.problem(n, "submitted: %v (row kept)", err)
		}
	}
	return e, true
}

// rowSeq reads the seq column, or in the legacy "Trace" layout the first
// number in the trace cell ("001", "Trace 001: …").
func rowSeq(c *columns, cells []string) (Seq, bool) {
	s := plain(c.get(cells, colSeq))
	if c.index[colSeq] < 0 {
		s = firstNumber(c.get(cells, colTrace))
	}
	v, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
	if err != nil || v < 1 || v > maxSeqValue {
		return 0, false
	}
	return Seq(v), true
}

func rowTitle(c *columns, cells []string) string {
	if t := plain(c.get(cells, colTitle)); t != "" {
		return t
	}
	t := plain(c.get(cells, colTrace))
	if firstNumber(t) == t {
		return ""
	}
	return t
}

func firstNumber(s string) string {
	start := strings.IndexAny(s, "0123456789")
	if start < 0 {
		return ""
	}
	end := start
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	return s[start:end]
}

// meta is a cell that holds a metadata value, plain and cleaned of
// control characters by the rule every node applies alike
// (docs/decisions.md, "Control characters in peers' metadata").
func meta(s string) string {
	return peertext.Clean(plain(s))
}

// plain strips the markdown emphasis and code marks peers put around cells.
func plain(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r == '*' || r == '`' || unicode.IsSpace(r) })
}

// linkTarget returns the target of a markdown link "[text](target)", or s.
// A target that holds brackets itself is left alone, so that the result is
// never again a link.
func linkTarget(s string) string {
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, ")") {
		return s
	}
	i := strings.Index(s, "](")
	if i < 0 {
		return s
	}
	target := plain(s[i+2 : len(s)-1])
	if target == "" || strings.ContainsAny(target, "[]()") {
		return s
	}
	return target
}

// isSeparator reports whether line is a table's separator row: cells made
// of dashes with optional alignment colons.
func isSeparator(line string) bool {
	if !strings.HasPrefix(line, "|") {
		return false
	}
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
	return dashes
}

// splitCells splits a table row on unescaped "|", dropping the outer pipes.
// "\|" is a literal pipe inside a cell.
func splitCells(line string) []string {
	s := strings.TrimPrefix(line, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			cur.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}
