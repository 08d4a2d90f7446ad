package heartbeat

import (
	"fmt"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAnUnverifiedRowGivesWayToAnotherAgentsVerifiedTrace: a stranger lists, in the
// legacy layout (no file column: free to list, never verifiable), a row
// whose hash is gamma's fresh trace, before the node reads gamma.
// recordUnfetchables records it as the stranger's unverified trace under
// that hash; when gamma's file was then fetched and verified, recordFile
// found another agent's trace of that hash and recorded gamma's as a copy
// of the stranger's, and queued nothing: the stranger's row was never
// queued (it cannot be fetched), so gamma's trace was never validated by
// this node, and the summary reported gamma as the copier. Now the
// verified record takes the unverified one's place (ledger.Supersede).
//
// Attack: one row naming a hash public in gamma's MANIFEST.md, listed
// before the node reads gamma (the mirror's race of issue 20, attack 3,
// without even serving the bytes). Harm: gamma's trace loses this
// node's validation and is recorded as another agent's (the ledger's
// record of the hash is the stranger's, gamma's a copy, which
// mesh-2026-3 lets earn nothing). The rule (docs/security.md, rows
// without a file column: "never verifiable"; docs/decisions.md, "Copies":
// "the same bytes from a second agent are its file too"): a row nobody
// could verify is no claim on bytes another agent served and verified.
func TestAnUnverifiedRowGivesWayToAnotherAgentsVerifiedTrace(t *testing.T) {
	p := newFakePeer(t)
	gamma := p.URL + "/gamma/"
	body := "# Gamma's finding\n\n## Work\n\nMeasured on loopback.\n"
	h := manifest.HashBytes([]byte(body))
	p.serve("/mallory/MANIFEST.md", []byte(fmt.Sprintf("# Manifest — mallory\n\n| Trace | Date | Type | Category | Hash | Status |\n|---|---|---|---|---|---|\n| 001 | 2026-03-14 | knowledge | rock | %s | pending |\n", h)))
	p.serve("/gamma/MANIFEST.md", []byte("# MANIFEST\n\nagent: gamma\nsequence: 0\n"))
	dir := newNode(t, [][2]string{{"gamma", gamma}, {"mallory", p.URL + "/mallory/"}}, "")
	beat(t, dir, testNow)
	if tr := loadLedger(t, dir).Traces[h]; tr == nil || tr.Verified {
		t.Fatalf("setup: the stranger's row is %+v, want recorded unverified", tr)
	}

	p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/001-finding.md", body}})
	sum := beat(t, dir, testNow.Add(cursorStep))
	if p.hitsOf("/gamma/traces/001-finding.md") == 0 {
		t.Fatal("setup: gamma's trace was never fetched")
	}
	if len(sum.Copies) != 0 {
		t.Errorf("gamma's trace is reported as a copy of %s's", sum.Copies[0].Of)
	}
	if tr := loadLedger(t, dir).Traces[h]; tr == nil || tr.AgentURL != gamma || !tr.Verified {
		t.Errorf("the ledger's record of gamma's verified trace is %+v, want gamma's, verified", tr)
	}
	if sum.Queued != 1 {
		t.Errorf("queued %d traces, want gamma's pending trace queued for validation", sum.Queued)
	}
}
