package signal

import (
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/roster"
)

// Compute resolves every trace and computes every agent's SIGNAL and
// standing (docs/decisions.md, Standing).
//
// Standing is a closure over the public files: the founders have it;
// each round resolves every trace counting only the votes of agents with
// standing, tallies SIGNAL, and admits every agent that reached
// EstablishedAt; it stops when a round admits nobody. An agent once
// admitted keeps standing for the rest of the closure, so the rounds only
// grow the set and always end (at most one round per agent). Nothing in
// it depends on a time a file states or on the order files were read.
func Compute(in Input) Report {
	m := newMesh(in)
	standing := map[string]int{}
	for k := range m.founders {
		standing[k] = 0
	}
	rep := Report{}
	var statuses map[string]*TraceResult
	var agents map[string]*Agent
	for {
		rep.Rounds++
		statuses = m.resolve(standing)
		agents = m.tally(statuses, standing)
		if !m.admit(agents, standing, rep.Rounds) {
			break
		}
	}
	rep.Agents = sortedAgents(agents)
	rep.Traces = sortedTraces(statuses)
	return rep
}

// admit gives standing to every agent whose SIGNAL reached EstablishedAt
// and reports whether anyone was admitted.
func (m *mesh) admit(agents map[string]*Agent, standing map[string]int, round int) bool {
	added := false
	for k, a := range agents {
		if _, ok := standing[k]; !ok && a.Signal >= EstablishedAt {
			standing[k] = round
			added = true
		}
	}
	return added
}

// mesh is the input deduplicated: one trace per hash, one vote per
// validator per trace, self-validations dropped. Agents are identified
// by their trace URL where one is known (a name is only what a file
// says), else by name.
type mesh struct {
	traces   []Trace                      // one per hash, sorted by hash
	byHash   map[string]Trace             // hash → trace
	votes    map[string]map[string]string // hash → validator key → "pass" | "fail"
	names    map[string]string            // agent key → name as first written
	urls     map[string]string            // agent key → trace URL
	founders map[string]bool              // agent key → named in FOUNDERS.md
}

func newMesh(in Input) *mesh {
	m := &mesh{
		byHash: map[string]Trace{}, votes: map[string]map[string]string{},
		names: map[string]string{}, urls: map[string]string{}, founders: map[string]bool{},
	}
	// Names come first from the traces (the name the node polls the agent
	// by), then from FOUNDERS.md, and only then from what validation files
	// say of themselves.
	m.addTraces(in.Traces)
	fs := append([]Founder(nil), in.Founders...)
	sort.Slice(fs, func(i, j int) bool { return agentKey(fs[i].Name, fs[i].URL) < agentKey(fs[j].Name, fs[j].URL) })
	for _, f := range fs {
		if f.Name == "" && f.URL == "" {
			continue
		}
		m.founders[agentKey(f.Name, f.URL)] = true
		m.learn(f.Name, f.URL)
	}
	m.addVotes(in.Validations)
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
		return agentKey(a.Agent, a.AgentURL) < agentKey(b.Agent, b.AgentURL)
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
	vs := append([]Validation(nil), vals...)
	sort.Slice(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if ka, kb := agentKey(a.Validator, a.ValidatorURL), agentKey(b.Validator, b.ValidatorURL); ka != kb {
			return ka < kb
		}
		return a.Validator < b.Validator
	})
	for _, v := range vs {
		t, ok := m.byHash[v.TraceHash]
		r := verdict(v)
		if !ok || r == "" || (v.Validator == "" && v.ValidatorURL == "") || isSelf(v, t) {
			continue
		}
		vk := agentKey(v.Validator, v.ValidatorURL)
		if m.votes[t.Hash] == nil {
			m.votes[t.Hash] = map[string]string{}
		}
		if prev, seen := m.votes[t.Hash][vk]; !seen || prev == "pass" {
			m.votes[t.Hash][vk] = r
		}
		m.learn(v.Validator, v.ValidatorURL)
	}
}

// isSelf reports a validation of the validator's own trace: the same
// trace URL, or the same name.
func isSelf(v Validation, t Trace) bool {
	if v.ValidatorURL != "" && t.AgentURL != "" && normalURL(v.ValidatorURL) == normalURL(t.AgentURL) {
		return true
	}
	return v.Validator != "" && strings.EqualFold(strings.TrimSpace(v.Validator), strings.TrimSpace(t.Agent))
}

func (m *mesh) learn(name, url string) {
	k := agentKey(name, url)
	if _, ok := m.names[k]; !ok || m.names[k] == "" {
		m.names[k] = strings.TrimSpace(name)
	}
	if m.urls[k] == "" && url != "" {
		m.urls[k] = url
	}
}

// resolve gives every trace its status, counting only the votes of
// agents with standing.
func (m *mesh) resolve(standing map[string]int) map[string]*TraceResult {
	out := make(map[string]*TraceResult, len(m.traces))
	for _, t := range m.traces {
		r := &TraceResult{Hash: t.Hash, Agent: m.names[agentKey(t.Agent, t.AgentURL)], URL: t.URL, Seq: t.Seq}
		for vk, v := range m.votes[t.Hash] {
			if _, ok := standing[vk]; !ok {
				r.Uncounted++
				continue
			}
			r.Seen++
			if v == "pass" {
				r.Passing++
			}
		}
		r.Status = status(r.Passing, r.Seen)
		if r.Seen > 0 {
			r.Signal = float64(r.Passing) / float64(r.Seen)
		}
		out[t.Hash] = r
	}
	return out
}

// status applies the resolution rule to the votes that count, all of
// them by agents with standing (Established or higher): the majority
// decides, and a tie is contested.
func status(passing, seen int) string {
	switch {
	case seen == 0:
		return StatusPending
	case 2*passing > seen:
		return StatusValidated
	case 2*passing < seen:
		return StatusFailed
	default:
		return StatusContested
	}
}

// agentKey identifies an agent: by its trace URL when known, since a
// name is whatever a file says and a URL is where the agent publishes;
// by name (case-insensitive: peers write noobAgent and noobagent) when
// no URL is known.
func agentKey(name, url string) string {
	if url != "" {
		return "url " + normalURL(url)
	}
	return "name " + strings.ToLower(strings.TrimSpace(name))
}

// normalURL is url as AGENTS.md lines are compared: scheme and host
// lowercased, one trailing slash.
func normalURL(url string) string {
	if u, err := roster.NormalizeURL(url); err == nil {
		return u
	}
	return strings.TrimRight(strings.TrimSpace(url), "/") + "/"
}
