package roster

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on what Parse considers, since a peer's AGENTS.md is gossip.
const (
	// MaxAgents is the number of agents kept from one file; the real
	// mesh has 15.
	MaxAgents = 10_000
	// MaxLineBytes is the longest line considered.
	MaxLineBytes = 4 << 10
	// maxProblems caps the problems reported for one file.
	maxProblems = 1000
)

// Parse reads AGENTS.md in either layout: the seed's pipe lines
// ("name | url | joined", "#" lines are comments) and the markdown table
// ("| Agent | URL | SIGNAL | Tier | Joined |", columns found by name). Lines
// with a bad name or URL, and later lines repeating a URL or a name, are
// skipped and reported; the first occurrence wins.
func Parse(data []byte) ([]Agent, []Problem) {
	p := &parser{urls: map[string]int{}, names: map[string]int{}}
	lines := strings.Split(strings.TrimPrefix(string(data), "\ufeff"), "\n")
	for i, raw := range lines {
		if len(p.agents) >= MaxAgents {
			p.problem(i+1, "more than %d agents; the rest are ignored", MaxAgents)
			break
		}
		p.line(i+1, raw)
	}
	return p.agents, p.problems
}

type parser struct {
	agents   []Agent
	problems []Problem
	header   *columns // set once a table header is seen
	urls     map[string]int
	names    map[string]int
}

func (p *parser) problem(line int, format string, args ...any) {
	switch {
	case len(p.problems) < maxProblems:
		p.problems = append(p.problems, Problem{Line: line, Reason: fmt.Sprintf(format, args...)})
	case len(p.problems) == maxProblems:
		p.problems = append(p.problems, Problem{Line: line, Reason: "too many problems; the rest are not reported"})
	}
}

func (p *parser) line(n int, raw string) {
	if len(raw) > MaxLineBytes {
		p.problem(n, "line longer than %d bytes skipped", MaxLineBytes)
		return
	}
	if !utf8.ValidString(raw) {
		p.problem(n, "line is not utf-8 text")
		return
	}
	// A stray carriage return inside a line reads as a space, so that every
	// value Parse returns can be written back on one line.
	line := strings.TrimSpace(strings.ReplaceAll(raw, "\r", " "))
	switch {
	case line == "", strings.HasPrefix(line, "#"), isSeparator(line):
		return
	case !strings.Contains(line, "|"):
		p.problem(n, "not an agent line (no '|')")
		return
	}
	cells := splitCells(line)
	if cols, ok := headerColumns(cells); ok {
		p.header = cols
		return
	}
	cols := pipeColumns
	if strings.HasPrefix(line, "|") && p.header != nil {
		cols = p.header
	}
	p.add(n, cols.agent(cells))
}

// add checks an agent and keeps it unless its URL or name was seen before.
func (p *parser) add(n int, a Agent) {
	if !ValidName(a.Name) {
		p.problem(n, "agent name %q: want 1–%d of A-Z a-z 0-9 . _ -", clip(a.Name), MaxNameBytes)
		return
	}
	u, err := NormalizeURL(a.URL)
	if err != nil {
		p.problem(n, "agent %s: %v", a.Name, err)
		return
	}
	a.URL = u
	if first, dup := p.urls[u]; dup {
		p.problem(n, "agent %s: url already listed on line %d", a.Name, first)
		return
	}
	if first, dup := p.names[a.Name]; dup {
		p.problem(n, "agent %s: name already listed on line %d", a.Name, first)
		return
	}
	p.urls[u], p.names[a.Name] = n, n
	p.agents = append(p.agents, a)
}
