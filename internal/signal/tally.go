package signal

import (
	"slices"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// Reasons of breakdown lines that are not a validated trace.
const (
	ReasonFounder  = "founder (FOUNDERS.md)"
	ReasonAuthored = "validation authored"
	// ReasonAgreed is a validation that agreed with the outcome the other
	// validators with standing settled (mesh-2026-2).
	ReasonAgreed = "validation agreed with the settled outcome"
	// ReasonUncorroborated ends the line of a validated trace that too few
	// agents passed to earn its label's value (mesh-2026-2).
	ReasonUncorroborated = ", uncorroborated"
	// ReasonCopied ends the line of a validated trace whose bytes another
	// agent lists too: it earns none of them anything (mesh-2026-3).
	ReasonCopied = ", copied"
)

// tally computes every agent's SIGNAL in the outcome, line by line: a
// founder's starting points, what its validated traces earn and what its
// validations earn (the sums are signals(o)). rounds is each agent's
// admission round, -1 without standing; barred, whether mismatches took
// it, and mismatches, each agent's disputed files (mismatchesOf).
func (m *mesh) tally(o outcome, rounds []int, barred []bool, mismatches []int) map[string]*Agent {
	lines := make([]map[string]*Earning, len(m.keyOf))
	validated := make([]int, len(m.keyOf))
	for id, k := range m.keyOf {
		if m.founders[k] {
			lines[id] = addLine(lines[id], ReasonFounder, 1, FounderPoints)
		}
	}
	for i, t := range m.traces {
		if o.status[i] != manifest.StatusValidated {
			continue
		}
		a := m.authors[i]
		reason, _ := earningFor(t.Type, t.Category)
		if m.copied[i] {
			m.tallyCopy(i, reason, lines, validated)
			continue
		}
		if !o.corroborated[i] {
			reason += ReasonUncorroborated
		}
		lines[a] = addLine(lines[a], reason, 1, o.earns[i])
		validated[a]++
	}
	reason := ReasonAuthored
	if m.rules.AgreeingOnly {
		reason = ReasonAgreed
	}
	out := map[string]*Agent{}
	for id, k := range m.keyOf {
		if n := o.earning[id]; n > 0 {
			lines[id] = addLine(lines[id], reason, n, float64(n)*ValidationPoints)
		}
		has := rounds[id] >= 0
		a := &Agent{Agent: m.names[k], URL: m.urls[k], Founder: m.founders[k], Standing: has, TracesValidated: validated[id], Admitters: o.admitters[id],
			ValidationsAuthored: o.counted[id], ValidationsUncounted: o.notCounted[id], ValidationsUnassigned: o.outside[id], Mismatches: mismatches[id], StandingLost: barred[id]}
		if has {
			a.StandingRound = rounds[id]
		}
		a.Breakdown = sortedEarnings(lines[id])
		for _, e := range a.Breakdown {
			a.Signal += e.Points
		}
		a.Tier = tierOf(a.Signal, has)
		out[k] = a
	}
	return out
}

// addLine adds count earnings of points in all to one reason's line.
func addLine(ls map[string]*Earning, reason string, count int, points float64) map[string]*Earning {
	if ls == nil {
		ls = map[string]*Earning{}
	}
	e := ls[reason]
	if e == nil {
		e = &Earning{Reason: reason}
		ls[reason] = e
	}
	e.Count += count
	e.Points += points
	return ls
}

func sortedEarnings(lines map[string]*Earning) []Earning {
	out := make([]Earning, 0, len(lines))
	for _, e := range lines {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Points != out[j].Points {
			return out[i].Points > out[j].Points
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

func sortedAgents(agents map[string]*Agent) []Agent {
	out := make([]Agent, 0, len(agents))
	for _, a := range agents {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Signal != out[j].Signal {
			return out[i].Signal > out[j].Signal
		}
		if ki, kj := strings.ToLower(out[i].Agent), strings.ToLower(out[j].Agent); ki != kj {
			return ki < kj
		}
		return out[i].URL < out[j].URL
	})
	return out
}

// sortedResults is every trace's resolution in the outcome, ordered by
// agent name (case-insensitive), seq and hash. A heartbeat after three
// years sorts hundreds of thousands of results: each name is lowercased
// and ranked once per agent, so that a comparison compares integers
// where it compared strings, and the sort orders the listings (listed)
// before any result is made, each then made once in its place. Its Less
// answers every question as comparing the results' names would, so
// sort.Sort, given the listings in the order results were, makes the same
// moves and the same order, ties included. Only the listings keep accepts
// (nil: all) are made results, once sorted, so that those kept are in the
// order the whole report has them.
func (m *mesh) sortedResults(o outcome, keep func(*ledger.Trace) bool) []TraceResult {
	ls := m.listed()
	rank := m.nameRanks()
	for i := range ls {
		ls[i].rank = rank[ls[i].agent]
	}
	sort.Sort(tracesByAgent(ls))
	if keep != nil {
		ls = slices.DeleteFunc(ls, func(l listing) bool { return !keep(l.t) })
	}
	out := make([]TraceResult, len(ls))
	for k, l := range ls {
		out[k] = m.result(o, l.trace, l.t)
		out[k].Agent = m.names[m.keyOf[l.agent]]
	}
	return out
}

// nameRanks is each agent id's place among the agents' names lowercased:
// equal for equal names, in the order of the names.
func (m *mesh) nameRanks() []int {
	lower := make([]string, len(m.keyOf))
	byName := make([]int, len(m.keyOf))
	for id, k := range m.keyOf {
		lower[id], byName[id] = strings.ToLower(m.names[k]), id
	}
	slices.SortFunc(byName, func(a, b int) int { return strings.Compare(lower[a], lower[b]) })
	rank := make([]int, len(m.keyOf))
	for i, id := range byName {
		if i > 0 {
			rank[id] = rank[byName[i-1]]
			if lower[id] != lower[byName[i-1]] {
				rank[id]++
			}
		}
	}
	return rank
}

// tracesByAgent sorts listings by their agent's name rank, seq, hash and
// URL: a total order, so that two listings of one hash at one seq by
// agents of one name (a mirror keeping the author's name) come out in
// the same order whatever order they came in (docs/decisions.md, "The
// order of SIGNAL's results").
type tracesByAgent []listing

func (s tracesByAgent) Len() int { return len(s) }

func (s tracesByAgent) Less(i, j int) bool {
	if s[i].rank != s[j].rank {
		return s[i].rank < s[j].rank
	}
	if s[i].seq != s[j].seq {
		return s[i].seq < s[j].seq
	}
	if s[i].hash != s[j].hash {
		return s[i].hash < s[j].hash
	}
	return s[i].t.URL < s[j].t.URL
}

func (s tracesByAgent) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
