package e2e

import (
	"fmt"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/validation"
)

// mirrorVote is founder fred's pass of alice's trace, in the canonical
// layout: what a mirror copies before fred's own manifest lists it.
const mirrorVote = `# VALIDATION

validator: fred
validator_url: https://fred.example/mesh/
trace_url: https://alice.example/mesh/traces/001-retry-ladder.md
trace_hash: %s
validated_at: 2026-03-15T11:00:00Z
result: pass
total_score: 22

scores:
  substance: 4
  uniqueness: 3
  specificity: 4
  actionability: 4
  structure: 4
  freshness: 3

notes: Read in full.
`

// mirrorAttack is issue 20's third attack on a real node: mallory lists
// byte copies of alice's fresh trace and of founder fred's pass of it one
// heartbeat before alice's and fred's own manifests do; then they list
// them. obs, a node of the mesh, polls all three. It returns what obs
// computes.
func mirrorAttack(t *testing.T, rules string) signal.Report {
	t.Helper()
	m := newMesh(t, "obs", "alice", "fred", "mallory")
	m.rules = rules
	m.founders = []signal.Founder{{Name: "fred", URL: m.node("fred").url}, {Name: "gina", URL: "https://gina.example/mesh/"}}
	m.configure("obs", "scorer: manual\n")
	writeFile(t, m.node("obs").dir, node.FoundersFile, string(signal.FormatFounders(rules, m.founders)))
	trace := readTestdata(t, "traces/ada/001-retry-ladder.md")
	vote := fmt.Sprintf(mirrorVote, hashOf(trace))
	publishByHand(t, m.node("alice"), "alice", nil, nil)
	publishByHand(t, m.node("fred"), "fred", nil, nil)
	publishByHand(t, m.node("mallory"), "mallory", map[string]string{
		"traces/001-retry-ladder.md": trace, "validations/val-copy.md": vote}, nil)
	m.beat("obs")
	m.now = m.now.Add(heartbeatEvery)
	publishByHand(t, m.node("alice"), "alice", map[string]string{"traces/001-retry-ladder.md": trace}, nil)
	publishByHand(t, m.node("fred"), "fred", map[string]string{"validations/" + validation.FileName(hashOf(trace)): vote}, nil)
	sum := m.beat("obs")
	// alice's listing, read after mallory's, is flagged in the summary.
	if len(sum.Copies) != 1 || sum.Copies[0].Peer != "alice" || sum.Copies[0].Of != "mallory" || sum.Copies[0].Hash != hashOf(trace) {
		t.Errorf("summary's copies: %+v, want alice's listing of mallory's", sum.Copies)
	}
	return reportOf(t, m, "obs")
}

// tracesOf returns the report's results for the trace with this hash.
func tracesOf(r signal.Report, h manifest.Hash) []signal.TraceResult {
	var out []signal.TraceResult
	for _, tr := range r.Traces {
		if tr.Hash == h {
			out = append(out, tr)
		}
	}
	return out
}

// TestAMirrorNeitherErasesTheFoundersVoteNorEarns: fred's pass is not
// skipped as a duplicate of mallory's copy, so alice's trace is validated
// (1 of 1) under every rule set. Under mesh-2026-2 the node reads one
// record per hash, the first it read, so mallory still takes the credit;
// under mesh-2026-3 every listing is a record flagged as a copy, and the
// copied trace earns nobody. On 11fdbc4 the trace stayed pending with no
// vote of fred's, and was mallory's.
func TestAMirrorNeitherErasesTheFoundersVoteNorEarns(t *testing.T) {
	hash := hashOf(readTestdata(t, "traces/ada/001-retry-ladder.md"))
	tests := []struct {
		rules   string
		records []string // who the trace's records name, by agent
		copy    bool
		earns   map[string]bool
	}{
		{signal.RulesMesh2026v2, []string{"mallory"}, false, map[string]bool{"alice": false, "mallory": true}},
		{signal.RulesMesh2026v3, []string{"alice", "mallory"}, true, map[string]bool{"alice": false, "mallory": false}},
	}
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			r := mirrorAttack(t, tt.rules)
			if fred := agentIn(r, "fred"); fred.ValidationsAuthored != 1 {
				t.Errorf("fred: %d validations counted, want 1 (his pass was skipped as a duplicate)", fred.ValidationsAuthored)
			}
			var records []string
			for _, tr := range tracesOf(r, hash) {
				records = append(records, tr.Agent)
				if tr.Status != manifest.StatusValidated || tr.Passing != 1 || tr.Seen != 1 || tr.Copy != tt.copy {
					t.Errorf("%s's record of the trace: %s, %d of %d passing, copy %v; want validated, 1 of 1, copy %v",
						tr.Agent, tr.Status, tr.Passing, tr.Seen, tr.Copy, tt.copy)
				}
			}
			if fmt.Sprint(records) != fmt.Sprint(tt.records) {
				t.Errorf("records of the trace by %v, want %v", records, tt.records)
			}
			for name, earns := range tt.earns {
				if a := agentIn(r, name); (a.Signal > 0) != earns {
					t.Errorf("%s: SIGNAL %v (%+v); earns: %v, want %v", name, a.Signal, a.Breakdown, a.Signal > 0, earns)
				}
			}
		})
	}
}
