package signal

import (
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// The mismatch rule of mesh-2026-3 (docs/protocol.md §7.4; docs/decisions.md,
// Rule sets): the polling protocol says "an agent with repeated hash
// mismatches loses standing" and leaves how many, seen by whom and for
// how long open.
const (
	// DisputersPerMismatch is how many distinct agents with standing must
	// dispute one file of an agent for it to count as a mismatch: one
	// agent's disputes must never cost another its standing.
	DisputersPerMismatch = 2
	// MismatchWindow is how many of an agent's newest seqs its mismatches
	// count within: an agent that serves its files right again regains
	// standing once it has published this many rows since the last one.
	MismatchWindow = 50
)

// mismatch is one file of an agent that agents disputed: the claimed
// hash its MANIFEST.md lists, and the distinct disputers.
type mismatch struct {
	agent     int   // agent id of the disputed agent
	reporters []int // agent ids of the disputers, sorted, each once
}

// addDisputes indexes the disputes that may cost an agent standing under
// rules that take it (Rules.LoseAtMismatches): one mismatch per disputed
// agent and claimed hash, with its distinct disputers, when the seq the
// disputes give it lies within MismatchWindow of the agent's newest
// trace (its own rows only: nobody else's claim moves its window). A
// dispute counts only when it disputes something (dispute.Check), names
// an agent the mesh knows (agentNames.disputed) that is not its own
// publisher, and is not refuted: a file of that agent that verified with the
// claimed hash (ledger.Trace.Verified) shows those bytes served right.
// Which disputers have standing is the closure's.
func (m *mesh) addDisputes(ds []ledger.Dispute, traces [][]*ledger.Trace) {
	refuted := m.verifiedFiles(traces)
	agents := newAgentNames(m.ids, m.keyOf, m.names)
	type found struct {
		mismatch
		seq manifest.Seq
	}
	byFile := map[string]*found{}
	for _, d := range ds {
		agent, ok := agents.disputed(d, m.key)
		reporter, known := m.ids[m.key(d.Reporter, d.ReporterURL)]
		if !ok || !known || agent == reporter || !usable(d) {
			continue
		}
		k := m.keyOf[agent] + " " + string(d.ClaimedHash)
		if refuted[k] {
			continue
		}
		f := byFile[k]
		if f == nil {
			f = &found{mismatch: mismatch{agent: agent}}
			byFile[k] = f
		}
		f.seq = max(f.seq, d.Seq)
		if !slices.Contains(f.reporters, reporter) {
			f.reporters = append(f.reporters, reporter)
		}
	}
	newest := m.newestSeqs()
	for _, k := range sortedKeys(byFile) {
		if f := byFile[k]; f.seq > newest[f.agent]-MismatchWindow {
			slices.Sort(f.reporters)
			m.mismatches = append(m.mismatches, f.mismatch)
		}
	}
}

// verifiedFiles is the set of "agent key, hash" of every file an agent
// served that verified.
func (m *mesh) verifiedFiles(lists [][]*ledger.Trace) map[string]bool {
	out := map[string]bool{}
	for _, l := range lists {
		for _, t := range l {
			if t.Verified {
				out[m.key(t.Agent, t.AgentURL)+" "+string(t.Hash)] = true
			}
		}
	}
	return out
}

// newestSeqs is each agent's highest trace seq, 0 for none: over every
// listing it made, copies included (under rules that judge copies, which
// of two listings a node read first must not move an agent's window).
func (m *mesh) newestSeqs() []manifest.Seq {
	out := make([]manifest.Seq, len(m.keyOf))
	for i, t := range m.traces {
		out[m.authors[i]] = max(out[m.authors[i]], t.Seq)
	}
	for _, others := range m.others {
		for _, t := range others {
			id := m.ids[m.key(t.Agent, t.AgentURL)]
			out[id] = max(out[id], t.Seq)
		}
	}
	return out
}

// agentNames is whom a dispute may name: the mesh's agents by agent key,
// and by a name only one of them goes by.
type agentNames struct {
	ids    map[string]int // agent key → agent id
	byName map[string]int // lowercased name → agent id, for names only one agent goes by
}

// newAgentNames indexes the agents keyOf lists (by id), whose names are
// names (by agent key).
func newAgentNames(ids map[string]int, keyOf []string, names map[string]string) agentNames {
	return agentNames{ids: ids, byName: uniqueNames(keyOf, names)}
}

// disputed is the agent a dispute names: by its agent_url, else by a
// name only one agent goes by (uniqueNames). key is agentKey, memoized
// (agentKeys.key).
func (a agentNames) disputed(d ledger.Dispute, key func(name, url string) string) (int, bool) {
	if id, ok := a.ids[key(d.Agent, d.AgentURL)]; ok {
		return id, true
	}
	id, ok := a.byName[strings.ToLower(strings.TrimSpace(d.Agent))]
	return id, ok
}

// uniqueNames maps each name (lowercased) that only one agent goes by to
// that agent. A dispute names the agent by the URL its reporter polls it
// at, which need not be the URL this reader polls it at: then its name
// says who it is, when the name is unambiguous.
func uniqueNames(keyOf []string, names map[string]string) map[string]int {
	out, twice := map[string]int{}, map[string]bool{}
	for id, k := range keyOf {
		n := strings.ToLower(names[k])
		if _, dup := out[n]; dup || n == "" {
			twice[n] = true
		}
		out[n] = id
	}
	for n := range twice {
		delete(out, n)
	}
	return out
}

// usable reports whether a dispute record disputes anything at all.
func usable(d ledger.Dispute) bool {
	return len((&dispute.Dispute{Agent: d.Agent, AgentURL: d.AgentURL, FileURL: d.FileURL, Seq: d.Seq,
		ClaimedHash: d.ClaimedHash, ServedHash: d.ServedHash}).Check()) == 0
}

// mismatchesOf counts, per agent, its mismatches that at least
// DisputersPerMismatch agents with standing dispute.
func (m *mesh) mismatchesOf(has []bool) []int {
	out := make([]int, len(m.keyOf))
	for _, mm := range m.mismatches {
		n := 0
		for _, r := range mm.reporters {
			if has[r] {
				n++
			}
		}
		if n >= DisputersPerMismatch {
			out[mm.agent]++
		}
	}
	return out
}

// bar takes standing for good from every agent with at least
// Rules.LoseAtMismatches mismatches disputed by agents with standing,
// all judged on the same standing, and reports whether it took any: the
// votes of those barred must then be counted again without them. An
// agent barred is never admitted again in the closure, so the closure
// still ends.
func (m *mesh) bar(has, barred []bool, rounds []int) bool {
	if m.rules.LoseAtMismatches == 0 {
		return false
	}
	took := false
	for id, n := range m.mismatchesOf(has) {
		if n >= m.rules.LoseAtMismatches && !barred[id] {
			barred[id], has[id], rounds[id] = true, false, -1
			took = true
		}
	}
	return took
}
