package e2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/audit"
	"github.com/meshnode/meshnode/internal/site"
)

// TestVerifyAgreesWithASettledNodesSite builds each node's site once the
// three nodes have read each other, and audits it as `meshnode verify
// DIR` does: every status its MANIFEST, its trace pages and its traces
// list show, and every SIGNAL and tier on its signal.html, is what the
// files give.
func TestVerifyAgreesWithASettledNodesSite(t *testing.T) {
	m := threeNodes(t)
	m.settle(maxRounds)
	for _, n := range m.nodes {
		t.Run(n.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "site")
			if _, err := site.Build(context.Background(), site.Options{Dir: n.dir, Out: out, Now: m.now}); err != nil {
				t.Fatal(err)
			}
			rep, err := audit.Run(context.Background(), audit.Options{Source: out, AllowPrivate: true, Now: m.now})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Problems() != 0 || rep.Lag != 0 || rep.Site.Lag != 0 || len(rep.Site.Notes) != 0 {
				t.Errorf("problems %d, lag %d, page lag %d, notes %v; want none: %+v", rep.Problems(), rep.Lag, rep.Site.Lag, rep.Site.Notes, rep.Site.Claims)
			}
			if len(rep.Rows) == 0 {
				t.Fatal("no trace rows audited")
			}
			// Three standings of two values each, and each trace's status
			// on its page and in the list.
			if want := 3*2 + 2*len(rep.Rows); rep.Site.Agree != want {
				t.Errorf("%d page values agree, want %d: %+v", rep.Site.Agree, want, rep.Site.Claims)
			}
		})
	}
}
