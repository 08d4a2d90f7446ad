package heartbeat

import (
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAMirrorThatWithdrawsTakesNoAuthorsTextDown: a mirror lists gamma's
// fresh trace one heartbeat before gamma does (issue 20, attack 3), so the
// ledger's record of the hash is the mirror's and gamma's listing is a
// copy. The mirror then drops the row: withdraw marks the record of the
// hash withdrawn, since its lister (the mirror) no longer lists it, though
// gamma, who published the bytes, still does; the node deletes the text
// and "a withdrawn trace leaves the site entirely".
//
// Attack: list a copy of a fresh trace before its author is read, then
// remove the row. Harm: gamma's trace, still published by gamma, leaves
// our site (its copy, reading page, row and feed entries). The rule
// (docs/decisions.md, "Taking a peer's text down"): withdrawn is "its
// author's MANIFEST.md ... no longer lists its hash in any row"; gamma
// lists it, and forgetting a first lister "moves a copy into traces"
// ("Copies") for the same reason.
func TestAMirrorThatWithdrawsTakesNoAuthorsTextDown(t *testing.T) {
	p := newFakePeer(t)
	p.publishSeqs("/mallory/", 1, map[manifest.Seq][2]string{1: {"traces/m.md", plainTrace}})
	p.serve("/gamma/MANIFEST.md", []byte("# MANIFEST\n\nagent: gamma\nsequence: 0\n"))
	dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"mallory", p.URL + "/mallory/"}}, "")
	beat(t, dir, testNow)
	p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", plainTrace}})
	beat(t, dir, testNow.Add(cursorStep))
	h := manifest.HashBytes([]byte(plainTrace))
	if len(loadLedger(t, dir).Copies) != 1 {
		t.Fatal("setup: gamma's listing is not a copy of the mirror's")
	}

	// The mirror drops its row; gamma still lists the trace.
	p.serve("/mallory/MANIFEST.md", []byte("# MANIFEST\n\nagent: mallory\nsequence: 2\n| seq | file | sha256 | type | status | submitted |\n|---|---|---|---|---|---|\n"))
	beat(t, dir, testNow.Add(2*cursorStep))
	beat(t, dir, testNow.Add(3*cursorStep))
	l := loadLedger(t, dir)
	if tr := l.Traces[h]; tr != nil && tr.TakenDown != "" {
		t.Errorf("the one record of the hash the site shows is taken down (%s, %s); gamma still lists it", tr.TakenDown, tr.AgentURL)
	}
	if loadCopies(t, dir).ByHash[h] == nil {
		t.Error("gamma's published trace lost its copy when the mirror dropped its row")
	}
}
