package manifest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/peertext"
)

// Limits on what Parse considers, so a hostile or broken peer cannot make a
// node spend unbounded time or memory on one file.
const (
	// MaxRows is the number of table rows considered; later rows are
	// dropped with one Problem. The largest real manifest has 246 rows.
	MaxRows = 100_000
	// MaxLineBytes is the longest line considered; a real row is about
	// 200 bytes.
	MaxLineBytes = 8 << 10
	// maxProblems caps the problems reported for one file.
	maxProblems = 1000
	// maxSeqValue is the largest seq accepted: far above any real sequence,
	// far below integer overflow.
	maxSeqValue = 1_000_000_000
)

// ErrNotManifest is returned when the bytes have neither a "sequence:" line
// nor a table with seq and hash columns (an HTML error page, say).
var ErrNotManifest = errors.New("not a manifest: no sequence line and no table with seq and hash columns")

// Parse reads a MANIFEST.md in any layout real nodes publish. Rows that
// cannot be used (bad hash, bad seq, wrong number of cells…) are skipped and
// reported as problems. It returns an error only when the bytes are not
// UTF-8 text or not a manifest at all.
func Parse(data []byte) (*Manifest, []Problem, error) {
	return parse(data, MaxRows)
}

// ParseOwn is Parse without the row limit, for the node's own MANIFEST.md,
// whose size its caller bounds: a node that published more than MaxRows
// files before its MANIFEST.md was archived (docs/decisions.md) must still
// read every row it published, to archive them.
func ParseOwn(data []byte) (*Manifest, []Problem, error) {
	return parse(data, maxSeqValue)
}

func parse(data []byte, maxRows int) (*Manifest, []Problem, error) {
	if !utf8.Valid(data) {
		return nil, nil, errors.New("manifest: not utf-8 text")
	}
	p := &parser{m: &Manifest{}, maxRows: maxRows}
	p.run(splitLines(data))
	if !p.sawSequence && !p.sawHeader {
		return nil, p.problems, ErrNotManifest
	}
	if p.m.Agent == "" {
		p.m.Agent = p.titleAgent
	}
	p.m.Agent = peertext.Clean(p.m.Agent)
	p.m.Rules = peertext.Clean(p.m.Rules)
	p.m.Pages = peertext.Clean(p.m.Pages)
	p.m.SortArchives()
	return p.m, p.problems, nil
}

// parser holds the state of one Parse.
type parser struct {
	m           *Manifest
	problems    []Problem
	cols        *columns // header of the current table; nil outside one
	ignoring    bool     // inside a table whose header has no hash column
	sawHeader   bool
	sawSequence bool
	titleAgent  string
	rows        int
	archives    int // archive lines seen
	maxRows     int
}

func splitLines(data []byte) []string {
	s := strings.TrimPrefix(string(data), "\ufeff")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		// A stray carriage return inside a line reads as a space, so that
		// every value Parse returns can be written back on one line.
		lines[i] = strings.ReplaceAll(strings.TrimSuffix(l, "\r"), "\r", " ")
	}
	return lines
}

func (p *parser) problem(line int, format string, args ...any) {
	switch {
	case len(p.problems) < maxProblems:
		p.problems = append(p.problems, Problem{Line: line, Reason: fmt.Sprintf(format, args...)})
	case len(p.problems) == maxProblems:
		p.problems = append(p.problems, Problem{Line: line, Reason: "too many problems; the rest are not reported"})
	}
}

func (p *parser) run(lines []string) {
	for i, raw := range lines {
		n := i + 1
		if len(raw) > MaxLineBytes {
			p.problem(n, "line longer than %d bytes skipped", MaxLineBytes)
			continue
		}
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
		case strings.HasPrefix(line, "|"):
			next := ""
			if i+1 < len(lines) && len(lines[i+1]) <= MaxLineBytes {
				next = strings.TrimSpace(lines[i+1])
			}
			if !p.tableLine(n, line, next) {
				return
			}
		default:
			p.textLine(n, line)
		}
	}
}

// tableLine handles one line starting with "|". It reports false when the
// row limit is reached and parsing must stop.
func (p *parser) tableLine(n int, line, next string) bool {
	if isSeparator(line) {
		return true
	}
	cells := splitCells(line)
	if cols, ok := headerColumns(cells); ok {
		p.cols, p.ignoring, p.sawHeader = cols, false, true
		return true
	}
	if isSeparator(next) {
		p.cols, p.ignoring = nil, true
		p.problem(n, "table without seq and hash columns ignored")
		return true
	}
	if p.ignoring {
		return true
	}
	if p.cols == nil {
		p.problem(n, "table row before any header skipped")
		return true
	}
	if p.rows++; p.rows > p.maxRows {
		p.problem(n, "more than %d rows; the rest are ignored", p.maxRows)
		return false
	}
	if e, ok := p.row(n, cells); ok {
		p.m.Entries = append(p.m.Entries, e)
	}
	return true
}

// textLine handles a line outside the table: the title and the key lines.
func (p *parser) textLine(n int, line string) {
	if strings.HasPrefix(line, "# ") {
		if p.titleAgent == "" {
			p.titleAgent = agentFromTitle(line[2:])
		}
		return
	}
	key, value, ok := keyValue(line)
	if !ok {
		return
	}
	switch key {
	case "agent":
		if p.m.Agent == "" {
			p.m.Agent = value
		}
	case "url":
		if p.m.URL == "" {
			p.m.URL = value
		}
	case "updated", "last updated":
		p.updated(n, value)
	case "sequence":
		p.sequence(n, value)
	case archiveKey:
		p.archive(n, value)
	case "rules":
		if p.m.Rules == "" {
			p.m.Rules = value
		}
	case "pages":
		if p.m.Pages == "" {
			p.m.Pages = value
		}
	}
}

func (p *parser) updated(n int, value string) {
	if !p.m.Updated.IsZero() || value == "" {
		return
	}
	t, err := ParseTime(value)
	if err != nil {
		p.problem(n, "updated: %v", err)
		return
	}
	p.m.Updated = t
}

func (p *parser) sequence(n int, value string) {
	if p.sawSequence {
		return
	}
	p.sawSequence = true
	v, err := strconv.Atoi(strings.Trim(value, "`"))
	if err != nil || v < 0 || v > maxSeqValue {
		p.problem(n, "sequence %q is not a number from 0 to %d", clip(value), maxSeqValue)
		return
	}
	p.m.Sequence = Seq(v)
}

// keyValue reads "key: value" and "**Key:** value" lines; the key comes back
// lowercased.
func keyValue(line string) (key, value string, ok bool) {
	s := strings.TrimPrefix(line, "**")
	k, v, ok := strings.Cut(s, ":")
	if !ok || strings.ContainsAny(k, "|#") {
		return "", "", false
	}
	key = toLowerTrim(strings.Trim(k, "* "))
	value = strings.TrimSpace(strings.TrimLeftFunc(v, func(r rune) bool { return r == '*' || unicode.IsSpace(r) }))
	return key, value, key != ""
}

// agentFromTitle reads the agent's name from "Manifest — name" or
// "name — System Agent Manifest"; "MANIFEST" alone names nobody.
func agentFromTitle(title string) string {
	t := strings.TrimSpace(title)
	for _, dash := range []string{"—", "–", " - ", ":"} {
		before, after, ok := strings.Cut(t, dash)
		if !ok {
			continue
		}
		before, after = strings.TrimSpace(before), strings.TrimSpace(after)
		switch {
		case strings.EqualFold(before, "manifest"):
			return after
		case strings.HasSuffix(strings.ToLower(after), "manifest"):
			return before
		}
	}
	return ""
}
