package signal

import (
	"sort"
	"strings"
)

// Compute resolves every trace and computes every agent's SIGNAL.
//
// Tiers feed resolution (Established-or-higher validators settle split
// verdicts) and resolution feeds SIGNAL, which sets tiers. Compute starts
// from the tiers bootstrap alone gives, then repeats resolve → tally until
// no agent changes tier, at most MaxRounds times.
func Compute(in Input) Report {
	m := newMesh(in)
	tiers := m.tiers(m.tally(nil))
	var statuses map[string]*TraceResult
	var agents map[string]*Agent
	rep := Report{}
	for rep.Rounds < MaxRounds {
		rep.Rounds++
		statuses = m.resolve(tiers)
		agents = m.tally(statuses)
		next := m.tiers(agents)
		if sameTiers(next, tiers) {
			rep.Stable = true
			break
		}
		tiers = next
	}
	rep.Agents = sortedAgents(agents)
	rep.Traces = sortedTraces(statuses)
	return rep
}

// mesh is the input deduplicated: one trace per hash, one vote per
// validator per trace, self-validations dropped.
type mesh struct {
	traces    []Trace                      // one per hash, sorted by hash
	byHash    map[string]Trace             // hash → trace
	votes     map[string]map[string]string // hash → validator key → "pass" | "fail"
	authored  map[string]int               // validator key → votes counted
	names     map[string]string            // agent key → name as first written
	urls      map[string]string            // agent key → trace URL
	bootstrap map[string]float64           // agent key → starting SIGNAL
}

func newMesh(in Input) *mesh {
	m := &mesh{
		byHash: map[string]Trace{}, votes: map[string]map[string]string{}, authored: map[string]int{},
		names: map[string]string{}, urls: map[string]string{}, bootstrap: map[string]float64{},
	}
	m.addTraces(in.Traces)
	m.addVotes(in.Validations)
	for _, name := range sortedKeys(in.Bootstrap) {
		k := key(name)
		m.bootstrap[k] += in.Bootstrap[name]
		m.learn(name, "")
	}
	return m
}

func (m *mesh) addTraces(traces []Trace) {
	ts := append([]Trace(nil), traces...)
	sort.Slice(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if a.Hash != b.Hash {
			return a.Hash < b.Hash
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return key(a.Agent) < key(b.Agent)
	})
	for _, t := range ts {
		if t.Hash == "" || t.Agent == "" {
			continue
		}
		if _, dup := m.byHash[t.Hash]; dup {
			continue
		}
		m.byHash[t.Hash] = t
		m.traces = append(m.traces, t)
		m.learn(t.Agent, t.AgentURL)
	}
}

// addVotes keeps one vote per validator per trace: when a validator
// published two verdicts on the same bytes (it should not), fail counts,
// the conservative reading. Validations of traces not seen, of one's own
// traces, or with no verdict earn nothing and count nowhere.
func (m *mesh) addVotes(vals []Validation) {
	for _, v := range vals {
		t, ok := m.byHash[v.TraceHash]
		r := verdict(v)
		if !ok || r == "" || v.Validator == "" || m.isSelf(v, t) {
			continue
		}
		vk := key(v.Validator)
		if m.votes[t.Hash] == nil {
			m.votes[t.Hash] = map[string]string{}
		}
		prev, seen := m.votes[t.Hash][vk]
		if !seen {
			m.authored[vk]++
		}
		if !seen || prev == "pass" {
			m.votes[t.Hash][vk] = r
		}
		m.learn(v.Validator, v.ValidatorURL)
	}
}

func (m *mesh) isSelf(v Validation, t Trace) bool {
	if key(v.Validator) == key(t.Agent) {
		return true
	}
	return v.ValidatorURL != "" && strings.EqualFold(strings.TrimRight(v.ValidatorURL, "/"), strings.TrimRight(t.AgentURL, "/"))
}

func (m *mesh) learn(name, url string) {
	k := key(name)
	if _, ok := m.names[k]; !ok {
		m.names[k] = strings.TrimSpace(name)
	}
	if m.urls[k] == "" && url != "" {
		m.urls[k] = url
	}
}

// resolve gives every trace its status under the given tiers.
func (m *mesh) resolve(tiers map[string]string) map[string]*TraceResult {
	out := make(map[string]*TraceResult, len(m.traces))
	for _, t := range m.traces {
		r := &TraceResult{Hash: t.Hash, Agent: m.names[key(t.Agent)], URL: t.URL, Seq: t.Seq}
		senior := 0 // Established-or-higher pass minus fail
		for vk, v := range m.votes[t.Hash] {
			r.Seen++
			w := 0
			if tiers[vk] != TierProvisional {
				w = 1
			}
			if v == "pass" {
				r.Passing++
				senior += w
			} else {
				senior -= w
			}
		}
		r.Status = status(r.Passing, r.Seen, senior)
		if r.Seen > 0 {
			r.Signal = float64(r.Passing) / float64(r.Seen)
		}
		out[t.Hash] = r
	}
	return out
}

// status applies the resolution rule: unanimous verdicts decide; split
// verdicts are contested unless Established-or-higher validators have a
// strict majority (senior = their passes minus their fails).
func status(passing, seen, senior int) string {
	switch {
	case seen == 0:
		return StatusPending
	case passing == seen:
		return StatusValidated
	case passing == 0:
		return StatusFailed
	case senior > 0:
		return StatusValidated
	case senior < 0:
		return StatusFailed
	default:
		return StatusContested
	}
}
