package signal

import (
	"iter"
	"slices"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// Copies (docs/decisions.md, "Copies"): under rules that judge them
// (Rules.CopiesEarnNothing), every agent's listing of a trace's bytes is a
// record of that trace. Nothing public says which agent published the bytes
// first, so bytes two or more agents list earn none of them anything, while
// every vote on them still settles their status, which all their records
// share. Without the rule the mesh keeps one record per hash, the first the
// node read, and nothing here changes a number.

// addCopy records t, a listing of bytes whose first record is already in
// the mesh, when the rules judge copies: a listing by an agent that does
// not list them yet.
func (m *mesh) addCopy(t *ledger.Trace) {
	if !m.rules.CopiesEarnNothing {
		return
	}
	if m.listers == nil {
		m.listers, m.others = map[manifest.Hash][]string{}, map[manifest.Hash][]*ledger.Trace{}
	}
	keys := m.listers[t.Hash]
	if keys == nil {
		first := m.traces[m.byHash[t.Hash]]
		keys = []string{m.key(first.Agent, first.AgentURL)}
	}
	k := m.key(t.Agent, t.AgentURL)
	i, found := slices.BinarySearch(keys, k)
	if found {
		return
	}
	m.listers[t.Hash] = slices.Insert(keys, i, k)
	m.others[t.Hash] = append(m.others[t.Hash], t)
	m.agents.learn(m.agents.entry(t.Agent, t.AgentURL), t.Agent, t.AgentURL)
}

// lists reports whether the agent with key k lists the bytes h as a copy.
func (m *mesh) lists(h manifest.Hash, k string) bool {
	return slices.Contains(m.listers[h], k)
}

// listings is every trace record: the first of each hash, then the other
// listings of copied bytes, by hash and in the order they were added. It
// walks the mesh's own records rather than copying them.
func (m *mesh) listings() iter.Seq[*ledger.Trace] {
	return func(yield func(*ledger.Trace) bool) {
		for i := range m.traces {
			if !yield(m.traces[i]) {
				return
			}
		}
		for i := range m.traces {
			others := m.others[m.traces[i].Hash]
			for _, o := range others {
				if !yield(o) {
					return
				}
			}
		}
	}
}

// copiedFiles returns the validation files (and verdict traces) that two
// or more agents list, by the file's hash: each counts as a vote of each
// lister, and earns none of them anything. nil unless the rules judge
// copies.
func (m *mesh) copiedFiles(vs []*ledger.Validation) map[manifest.Hash]bool {
	if !m.rules.CopiesEarnNothing {
		return nil
	}
	by := map[manifest.Hash]string{}
	out := map[manifest.Hash]bool{}
	for _, v := range vs {
		if v.SourceHash == "" {
			continue
		}
		k := m.key(v.Validator, v.ValidatorURL)
		if first, ok := by[v.SourceHash]; !ok {
			by[v.SourceHash] = k
		} else if first != k {
			out[v.SourceHash] = true
		}
	}
	return out
}

// indexCopies lays out, per trace, whether its bytes are copied and the
// agent ids of every lister (its author alone when not copied).
func (m *mesh) indexCopies() {
	m.copied = make([]bool, len(m.traces))
	m.listerIDs = make([][]int, len(m.traces))
	for i, t := range m.traces {
		keys := m.listers[t.Hash]
		if len(keys) < 2 {
			m.listerIDs[i] = m.authors[i : i+1 : i+1] // its author alone, without an array of its own
			continue
		}
		m.copied[i] = true
		for _, k := range keys {
			m.listerIDs[i] = append(m.listerIDs[i], m.ids[k])
		}
	}
}

// tracePoints is what trace i earns its author once validated: nothing
// when its bytes are copied.
func (m *mesh) tracePoints(i int, corroborated bool) float64 {
	if m.copied[i] {
		return 0
	}
	return m.rules.tracePoints(m.points[i], corroborated)
}

// unearnCopies takes back, under rules where every counted validation
// earns, the counted votes cast by copied files.
func (m *mesh) unearnCopies(o *outcome, has []bool) {
	for i := range m.traces {
		for _, b := range m.ballots[i] {
			if b.copied && has[b.voter] {
				o.earning[b.voter]--
			}
		}
	}
}

// tallyCopy adds to each lister of copied trace i, validated, a line that
// earns nothing.
func (m *mesh) tallyCopy(i int, reason string, lines []map[string]*Earning, validated []int) {
	for _, a := range m.listerIDs[i] {
		lines[a] = addLine(lines[a], reason+ReasonCopied, 1, 0)
		validated[a]++
	}
}

// listedCopies appends to out every listing after the first of copied
// bytes, by hash: each takes the status of their hash, under its
// lister's name.
func (m *mesh) listedCopies(out []listing) []listing {
	if len(m.others) == 0 {
		return out
	}
	for i, t := range m.traces {
		for _, c := range m.others[t.Hash] {
			out = append(out, listing{trace: i, t: c, agent: m.ids[m.key(c.Agent, c.AgentURL)], seq: c.Seq, hash: c.Hash})
		}
	}
	return out
}
