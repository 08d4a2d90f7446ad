package site

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/signal"
)

// TestSiteSaysHowSignalIsEarnedUnderTheMeshsRuleSet: the home and SIGNAL
// pages describe SIGNAL and standing as the mesh's rule set computes
// them, in the rule set's own words: under mesh-2026-3, that disputed
// hash mismatches cost standing.
func TestSiteSaysHowSignalIsEarnedUnderTheMeshsRuleSet(t *testing.T) {
	for _, rules := range signal.KnownRules() {
		t.Run(rules, func(t *testing.T) {
			dir, out := t.TempDir(), filepath.Join(t.TempDir(), "_site")
			if err := os.CopyFS(dir, os.DirFS("testdata/node")); err != nil {
				t.Fatal(err)
			}
			founders := "rules: " + rules + "\nada | https://ada.example.org/traces/\ncyd | https://cyd.example.org/traces/\n"
			if err := os.WriteFile(filepath.Join(dir, "FOUNDERS.md"), []byte(founders), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
				t.Fatal(err)
			}
			r, _ := signal.RulesNamed(rules)
			mismatches := strings.Contains(r.Summary, "hash mismatches")
			if mismatches != (r.LoseAtMismatches > 0) {
				t.Errorf("the summary of %s says hash mismatches cost standing: %v; the rule set takes standing for them: %v", rules, mismatches, r.LoseAtMismatches > 0)
			}
			for _, page := range []string{"index.html", "signal.html"} {
				data, err := os.ReadFile(filepath.Join(out, page))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(data), htmlText(r.Summary)) {
					t.Errorf("%s does not say how SIGNAL is earned under %s: %q", page, rules, r.Summary)
				}
			}
		})
	}
}

// htmlText is s as html/template writes it in text.
func htmlText(s string) string {
	return strings.NewReplacer("'", "&#39;", "\"", "&#34;", "&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
