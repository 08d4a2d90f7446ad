package e2e

import (
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// TestNodesOfDifferentRuleSetsTellEachOtherApart runs two founders that
// poll each other, each with its own FOUNDERS.md rules line: nodes of one
// rule set agree and say nothing; nodes of two say so, and a node whose
// FOUNDERS.md names rules it does not implement publishes no status.
func TestNodesOfDifferentRuleSetsTellEachOtherApart(t *testing.T) {
	tests := []struct {
		name           string
		ada, bob       string // the rules each node's FOUNDERS.md names
		adaSees        string // what ada's summary says of bob's rules; "" nothing
		bobUnknown     bool   // bob does not implement its own rules
		bobValidated   bool   // bob's traces, passed by ada, are validated in bob's MANIFEST
		bobValidations int    // validations bob publishes of ada's traces
	}{
		{name: "the same rules: they agree and say nothing", ada: signal.RulesMesh2026v1, bob: signal.RulesMesh2026v1,
			bobValidated: true, bobValidations: 2},
		{name: "today's rules and the new: ada says bob's differ, and both still compute", ada: signal.RulesMesh2026v1, bob: signal.RulesMesh2026v2,
			adaSees: "computes with rule set mesh-2026-2, this node with mesh-2026-1", bobValidated: true, bobValidations: 2},
		{name: "rules bob does not implement: both say so, and bob publishes no status", ada: signal.RulesMesh2026v1, bob: "mesh-2099-1",
			adaSees: "which this meshnode does not implement", bobUnknown: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMesh(t, "ada", "bob")
			m.configure("ada", founding)
			m.configure("bob", founding)
			ada, bob := m.node("ada"), m.node("bob")
			writeFile(t, ada.dir, node.FoundersFile, string(signal.FormatFounders(tt.ada, m.founders)))
			writeFile(t, bob.dir, node.FoundersFile, string(signal.FormatFounders(tt.bob, m.founders)))
			ada.addTraces(t, "ada", "001-retry-ladder.md", "002-gap-cursor.md")
			bob.addTraces(t, "bob", "002-manifest-diff-tool.md", "004-sha-verify-batch.md")
			m.round()
			m.round()
			adaSum, bobSum := m.beat("ada"), m.beat("bob")

			if got := readManifest(t, bob.dir).Rules; got != tt.bob {
				t.Errorf("bob's MANIFEST.md declares rules %q, want %q", got, tt.bob)
			}
			notes := ""
			for _, r := range adaSum.RulesDiffer {
				notes += r.Note
			}
			if tt.adaSees == "" && notes != "" || !strings.Contains(notes, tt.adaSees) {
				t.Errorf("ada's summary says %q of bob's rules, want %q", notes, tt.adaSees)
			}
			if bobSum.RulesUnknown != tt.bobUnknown || bobSum.Rules != tt.bob {
				t.Errorf("bob's summary: rules %q unknown %v; want %q %v", bobSum.Rules, bobSum.RulesUnknown, tt.bob, tt.bobUnknown)
			}
			validated := 0
			for _, e := range readManifest(t, bob.dir).Entries {
				if e.Status == manifest.StatusValidated {
					validated++
				}
			}
			if (validated > 0) != tt.bobValidated {
				t.Errorf("bob's MANIFEST.md lists %d validated traces; want some: %v", validated, tt.bobValidated)
			}
			if got := len(readValidations(t, bob.dir)); got != tt.bobValidations {
				t.Errorf("bob published %d validations, want %d", got, tt.bobValidations)
			}
		})
	}
}
