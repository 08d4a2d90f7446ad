package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// alwaysFail is a scorer that fails every trace: the votes an attacker
// casts once it has standing.
const alwaysFail = `scorer: command
scorer_command: ["/bin/sh", "-c", "cat >/dev/null; echo '{\"scores\":{\"substance\":1,\"uniqueness\":1,\"specificity\":1,\"actionability\":1,\"structure\":1,\"freshness\":1},\"notes\":\"no\"}'"]
`

func agentIn(r signal.Report, name string) signal.Agent {
	for _, a := range r.Agents {
		if a.Agent == name {
			return a
		}
	}
	return signal.Agent{}
}

// TestOneFoundersHeartbeatBuysNoStandingUnderNewRules is issue 20's first
// attack on real nodes: mallory publishes five ordinary traces labelled
// capability/rock, founder fred's heuristic passes them in one heartbeat,
// and mallory, failing everything it scores, then votes on honest's trace.
// Founder gina polls only fred (no gossip), so she never scores mallory. Under mesh-2026-1 mallory has standing and
// its vote turns honest's trace from validated to contested; under
// mesh-2026-2 one founder's passes earn mallory 1 each and no standing.
func TestOneFoundersHeartbeatBuysNoStandingUnderNewRules(t *testing.T) {
	tests := []struct {
		rules         string
		malloryStands bool
		honest        manifest.Status
	}{
		{signal.RulesMesh2026v1, true, manifest.StatusContested},
		{signal.RulesMesh2026v2, false, manifest.StatusValidated},
	}
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			m := newMesh(t, "fred", "gina", "mallory", "honest")
			m.rules = tt.rules
			m.configure("fred", founding)
			m.configure("gina", founding+"gossip:\n  enabled: false\n")
			m.configure("mallory", alwaysFail)
			m.configure("honest", gated)
			writeFile(t, m.node("gina").dir, node.AgentsFile, "fred | "+m.node("fred").url+" | 2026-03-01\n")
			m.node("mallory").addTraces(t, "bob", "002-manifest-diff-tool.md", "003-robots-cache.md", "004-sha-verify-batch.md",
				"005-backoff-table.md", "006-site-build-time.md")
			m.node("honest").addTraces(t, "ada", "001-retry-ladder.md")
			for range 4 {
				m.round()
			}
			r := reportOf(t, m, "fred")
			mal := agentIn(r, "mallory")
			if mal.Standing != tt.malloryStands {
				t.Errorf("mallory: standing %v, want %v (SIGNAL %v: %+v)", mal.Standing, tt.malloryStands, mal.Signal, mal.Breakdown)
			}
			for _, tr := range r.Traces {
				if tr.Agent == "honest" && tr.Status != tt.honest {
					t.Errorf("honest's trace is %s (%d of %d passing), want %s", tr.Status, tr.Passing, tr.Seen, tt.honest)
				}
			}
		})
	}
}

// TestOneBulkHeartbeatBuysBoundedSignalUnderNewRules is issue 20's second
// attack on real nodes: two founders, freshly started, each score all 30
// of a busy agent's traces in one heartbeat. Under mesh-2026-1 each
// validation earns 1; under mesh-2026-2 only those agreeing with the
// other founder's earn, at most 10 a day.
func TestOneBulkHeartbeatBuysBoundedSignalUnderNewRules(t *testing.T) {
	const traces = 30
	tests := []struct {
		rules  string
		signal float64
	}{
		{signal.RulesMesh2026v1, signal.FounderPoints + traces},
		{signal.RulesMesh2026v2, signal.FounderPoints + 10},
	}
	for _, tt := range tests {
		t.Run(tt.rules, func(t *testing.T) {
			m := newMesh(t, "bulk", "fred", "busy")
			m.rules = tt.rules
			m.configure("bulk", founding+alwaysPass)
			m.configure("fred", founding+alwaysPass)
			m.configure("busy", gated)
			busy := m.node("busy")
			for i := 1; i <= traces; i++ {
				writeFile(t, busy.dir, fmt.Sprintf("traces/%03d-note.md", i), fmt.Sprintf(
					"# Trace: note %d\n\n**Agent:** busy\n**Type:** knowledge\n**Category:** pebble\n\n## Work\n\nNote %d %s.\n", i, i, strings.Repeat("measured ", i)))
			}
			m.round()
			m.round()
			m.round()
			r := reportOf(t, m, "busy")
			for _, name := range []string{"bulk", "fred"} {
				a := agentIn(r, name)
				if a.ValidationsAuthored != traces || a.Signal != tt.signal {
					t.Errorf("%s: %d validations, SIGNAL %v; want %d and %v (%+v)", name, a.ValidationsAuthored, a.Signal, traces, tt.signal, a.Breakdown)
				}
			}
		})
	}
}
