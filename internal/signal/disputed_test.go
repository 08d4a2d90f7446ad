package signal

import (
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
)

// TestADisputeIsAboutTheAgentTheMismatchRuleReadsItAs: DisputedAgents,
// built from a report, reads whom a dispute is about as the mismatch
// rule reads it over the mesh the report was computed from (by
// agent_url, else by a name only one agent goes by), so that a node's
// take-down and SIGNAL never disagree.
func TestADisputeIsAboutTheAgentTheMismatchRuleReadsItAs(t *testing.T) {
	in := mismatchMesh(RulesMesh2026v3)
	in.Traces = append(in.Traces,
		&ledger.Trace{Agent: "Mal", AgentURL: "https://mal2.example/", Seq: 1, Hash: hash("mal2", 1)},
		tr("gamma", 1, "knowledge", "rock"))
	in.Validations = append(in.Validations, &ledger.Validation{Validator: "nameless", TraceHash: hash("gamma", 1), Result: "pass"})
	named := func(agent, url string) ledger.Dispute {
		d := disp("ann", "gamma", 1)
		d.Agent, d.AgentURL = agent, url
		return d
	}
	for _, c := range []struct {
		name string
		d    ledger.Dispute
		want string // the URL of the agent it is about; "" for none
	}{
		{"by its URL", named("gamma", "https://gamma.example/"), "https://gamma.example/"},
		{"by its URL, under another name", named("someone", "https://gamma.example/"), "https://gamma.example/"},
		{"by another spelling of its URL", named("gamma", "HTTPS://GAMMA.example"), "https://gamma.example/"},
		{"at another URL, by a name only it goes by", named("GAMMA", "https://gamma.elsewhere.example/"), "https://gamma.example/"},
		{"at another URL, by a name two agents go by", named("mal", "https://mal.elsewhere.example/"), ""},
		{"an agent the mesh does not know", named("mallory", "https://mallory.example/"), ""},
		{"an agent known by name only", named("nameless", ""), "nameless"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Compute(in)
			m := newMesh(in, rulesOf(t, in.Rules))
			id, ok := newAgentNames(m.ids, m.keyOf, m.names).disputed(c.d, m.key)
			agents := DisputedAgentsOf(r)
			about := 0
			for _, a := range r.Agents {
				got := agents.About(c.d, a.Agent, a.URL)
				if mesh := ok && m.keyOf[id] == agentKey(a.Agent, a.URL); got != mesh {
					t.Errorf("About(%s) = %v, but the mismatch rule reads it as about %s: %v", a.Agent, got, a.Agent, mesh)
				}
				if want := c.want != "" && (a.URL == c.want || a.URL == "" && a.Agent == c.want); got != want {
					t.Errorf("About(%s) = %v, want %v", a.Agent, got, want)
				}
				if got {
					about++
				}
			}
			if want := min(len(c.want), 1); about != want {
				t.Errorf("about %d agents of %d, want %d", about, len(r.Agents), want)
			}
		})
	}
}

func rulesOf(t *testing.T, name string) Rules {
	t.Helper()
	r, ok := RulesNamed(name)
	if !ok {
		t.Fatalf("no rule set %q", name)
	}
	return r
}

// TestNamesReadsTheAgentURLElseTheName: without a report, a dispute
// names an agent by its agent_url, compared as AGENTS.md lines are, or,
// when it gives none, by its agent name without case; an agent_url never
// falls back to the name.
func TestNamesReadsTheAgentURLElseTheName(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    ledger.Dispute
		want bool
	}{
		{"same agent_url", ledger.Dispute{Agent: "gamma", AgentURL: "https://gamma.example/"}, true},
		{"agent_url spelled otherwise", ledger.Dispute{Agent: "x", AgentURL: "HTTPS://Gamma.example:443/"}, true},
		{"another agent_url, the same name", ledger.Dispute{Agent: "gamma", AgentURL: "https://other.example/"}, false},
		{"no agent_url, the name in another case", ledger.Dispute{Agent: " Gamma "}, true},
		{"no agent_url, another name", ledger.Dispute{Agent: "delta"}, false},
		{"neither", ledger.Dispute{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Names(tc.d, "gamma", "https://gamma.example/"); got != tc.want {
				t.Errorf("Names = %v, want %v", got, tc.want)
			}
		})
	}
}
