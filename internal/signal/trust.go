package signal

import (
	"sort"
	"strings"
)

// Edge is one arrow of the trust graph: the votes one agent gave another
// agent's traces, from validation files and verdict traces alike, whether
// or not the validator has standing. It is who validated whom across the
// mesh, computed here once for every command and the site.
type Edge struct {
	Validator    string `json:"validator"`
	ValidatorURL string `json:"validator_url,omitempty"`
	Agent        string `json:"agent"`
	AgentURL     string `json:"agent_url,omitempty"`
	Pass         int    `json:"pass"`
	Fail         int    `json:"fail"`
	// Counted is how many of the votes count: the validator has standing.
	Counted int `json:"counted"`
	// Verdicts is how many of the votes were read from verdicts in the
	// validator's traces rather than from validation files.
	Verdicts int `json:"verdicts"`
}

// trust sums the ballots into edges, sorted by validator, then agent;
// has[id] says whether agent id ended the closure with standing.
func (m *mesh) trust(has []bool) []Edge {
	byPair := map[[2]int]*Edge{}
	for i := range m.traces {
		for _, author := range m.listerIDs[i] {
			m.trustTrace(byPair, has, i, author)
		}
	}
	out := make([]Edge, 0, len(byPair))
	for _, e := range byPair {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if va, vb := strings.ToLower(a.Validator), strings.ToLower(b.Validator); va != vb {
			return va < vb
		}
		if a.ValidatorURL != b.ValidatorURL {
			return a.ValidatorURL < b.ValidatorURL
		}
		if aa, ab := strings.ToLower(a.Agent), strings.ToLower(b.Agent); aa != ab {
			return aa < ab
		}
		return a.AgentURL < b.AgentURL
	})
	return out
}

// trustTrace adds trace i's votes to the edges towards author: its
// author, or each agent that lists its bytes when they are copied.
func (m *mesh) trustTrace(byPair map[[2]int]*Edge, has []bool, i, author int) {
	for _, b := range m.ballots[i] {
		k := [2]int{b.voter, author}
		e := byPair[k]
		if e == nil {
			vk, ak := m.keyOf[b.voter], m.keyOf[author]
			e = &Edge{Validator: m.names[vk], ValidatorURL: m.urls[vk], Agent: m.names[ak], AgentURL: m.urls[ak]}
			byPair[k] = e
		}
		if b.pass {
			e.Pass++
		} else {
			e.Fail++
		}
		if has[b.voter] {
			e.Counted++
		}
		if b.verdict {
			e.Verdicts++
		}
	}
}
