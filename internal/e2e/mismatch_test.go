package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// TestMismatchesDisputedByTwoCostStandingUnderNewRules is issue 20's
// fourth item on real nodes: founder mal serves three traces whose bytes
// differ from its MANIFEST.md's hashes (a host that rewrites files).
// The founders that poll mal each publish a dispute per file; cyd polls
// only the other founders, so it knows mal's files only by their
// disputes. Under mesh-2026-3 disputes by two agents with standing cost
// mal its standing, on every node; by one they do not; under mesh-2026-2
// no number of disputes does.
func TestMismatchesDisputedByTwoCostStandingUnderNewRules(t *testing.T) {
	tests := []struct {
		name      string
		rules     string
		disputers []string // the founders that poll mal
		stands    bool
	}{
		{"mesh-2026-3, two disputers", signal.RulesMesh2026v3, []string{"fred", "gina"}, false},
		{"mesh-2026-3, one disputer", signal.RulesMesh2026v3, []string{"fred"}, true},
		{"mesh-2026-2, two disputers", signal.RulesMesh2026v2, []string{"fred", "gina"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMesh(t, "fred", "gina", "cyd", "mal")
			m.rules = tt.rules
			for _, name := range []string{"fred", "gina", "cyd", "mal"} {
				m.configure(name, founding+"gossip:\n  enabled: false\n")
			}
			mal := m.node("mal")
			files, claimed := map[string]string{}, map[string]manifest.Hash{}
			for _, f := range []string{"002-manifest-diff-tool.md", "003-robots-cache.md", "004-sha-verify-batch.md"} {
				honest := readTestdata(t, "traces/bob/"+f)
				files["traces/"+f] = strings.ReplaceAll(honest, "\n", "\r\n") // the host's rewrite
				claimed["traces/"+f] = hashOf(honest)
			}
			publishByHand(t, mal, "mal", files, claimed)
			for _, name := range []string{"fred", "gina", "cyd"} {
				polls := "# name | trace_url | joined\n"
				for _, o := range []string{"fred", "gina", "cyd"} {
					if o != name {
						polls += fmt.Sprintf("%s | %s | 2026-02-01\n", o, m.node(o).url)
					}
				}
				for _, d := range tt.disputers {
					if d == name {
						polls += "mal | " + mal.url + " | 2026-02-01\n"
					}
				}
				writeFile(t, m.node(name).dir, node.AgentsFile, polls)
			}
			for range 3 {
				for _, name := range []string{"fred", "gina", "cyd"} {
					m.beat(name)
				}
				m.now = m.now.Add(heartbeatEvery)
			}
			for _, observer := range []string{"fred", "cyd"} {
				a := agentIn(reportOf(t, m, observer), "mal")
				if a.Standing != tt.stands || a.StandingLost == tt.stands {
					t.Errorf("%s sees mal: standing %v, lost %v, %d mismatches; want standing %v", observer, a.Standing, a.StandingLost, a.Mismatches, tt.stands)
				}
			}
			l, err := ledger.Load(filepath.Join(m.node("cyd").dir, filepath.FromSlash(node.LedgerFile)))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(l.Disputes); got != 3*len(tt.disputers) {
				t.Errorf("cyd recorded %d disputes, want %d", got, 3*len(tt.disputers))
			}
		})
	}
}
