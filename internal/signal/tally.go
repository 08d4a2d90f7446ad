package signal

import (
	"sort"
)

// tally computes every agent's SIGNAL from bootstrap, validated traces
// and validations authored. statuses may be nil (before any resolution).
func (m *mesh) tally(statuses map[string]*TraceResult) map[string]*Agent {
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
	for _, k := range sortedKeys(m.bootstrap) {
		add(k, "bootstrap (founding agent)", m.bootstrap[k])
	}
	validated := map[string]int{}
	for _, t := range m.traces {
		if r := statuses[t.Hash]; r != nil && r.Status == StatusValidated {
			reason, p := earningFor(t.Type, t.Category)
			add(key(t.Agent), reason, p)
			validated[key(t.Agent)]++
		}
	}
	for _, k := range sortedKeys(m.authored) {
		for i := 0; i < m.authored[k]; i++ {
			add(k, "validation authored", ValidationPoints)
		}
	}
	out := map[string]*Agent{}
	for k, name := range m.names {
		a := &Agent{Agent: name, URL: m.urls[k], TracesValidated: validated[k], ValidationsAuthored: m.authored[k]}
		a.Breakdown = sortedEarnings(lines[k])
		for _, e := range a.Breakdown {
			a.Signal += e.Points
		}
		a.Tier = TierOf(a.Signal)
		out[k] = a
	}
	return out
}

func (m *mesh) tiers(agents map[string]*Agent) map[string]string {
	out := make(map[string]string, len(agents))
	for k, a := range agents {
		out[k] = a.Tier
	}
	return out
}

func sameTiers(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
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
		return key(out[i].Agent) < key(out[j].Agent)
	})
	return out
}

func sortedTraces(ts map[string]*TraceResult) []TraceResult {
	out := make([]TraceResult, 0, len(ts))
	for _, t := range ts {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if key(a.Agent) != key(b.Agent) {
			return key(a.Agent) < key(b.Agent)
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.Hash < b.Hash
	})
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
