package signal

import (
	"slices"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Reasons of breakdown lines that are not a validated trace.
const (
	ReasonFounder  = "founder (FOUNDERS.md)"
	ReasonAuthored = "validation authored"
)

// tally computes every agent's SIGNAL under the given standing: a
// founder's starting points, what its validated traces earn, and 1 per
// validation it authored with standing. statuses come from resolve under
// the same standing.
func (m *mesh) tally(statuses map[manifest.Hash]*TraceResult, standing map[string]int) map[string]*Agent {
	lines := map[string]map[string]*Earning{}
	add := func(k, reason string, points float64) {
		if lines[k] == nil {
			lines[k] = map[string]*Earning{}
		}
		e := lines[k][reason]
		if e == nil {
			e = &Earning{Reason: reason}
			lines[k][reason] = e
		}
		e.Count++
		e.Points += points
	}
	for _, k := range sortedKeys(m.founders) {
		add(k, ReasonFounder, FounderPoints)
	}
	validated := map[string]int{}
	counted, uncounted := map[string]int{}, map[string]int{}
	for i, t := range m.traces {
		if r := statuses[t.Hash]; r != nil && r.Status == manifest.StatusValidated {
			k := m.keyOf[m.authors[i]]
			reason, p := earningFor(t.Type, t.Category)
			add(k, reason, p)
			validated[k]++
		}
		for _, b := range m.ballots[i] {
			vk := m.keyOf[b.voter]
			if _, ok := standing[vk]; ok {
				counted[vk]++
			} else {
				uncounted[vk]++
			}
		}
	}
	for _, k := range sortedKeys(counted) {
		lines[k] = addLine(lines[k], ReasonAuthored, counted[k], float64(counted[k])*ValidationPoints)
	}
	out := map[string]*Agent{}
	for k, name := range m.names {
		round, has := standing[k]
		a := &Agent{Agent: name, URL: m.urls[k], Founder: m.founders[k], Standing: has, TracesValidated: validated[k],
			ValidationsAuthored: counted[k], ValidationsUncounted: uncounted[k]}
		if has {
			a.StandingRound = round
		}
		a.Breakdown = sortedEarnings(lines[k])
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

func sortedTraces(ts map[manifest.Hash]*TraceResult) []TraceResult {
	out := make([]TraceResult, 0, len(ts))
	for _, t := range ts {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ka, kb := strings.ToLower(a.Agent), strings.ToLower(b.Agent); ka != kb {
			return ka < kb
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.Hash < b.Hash
	})
	return out
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
