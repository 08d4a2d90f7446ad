package heartbeat

import (
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAWithdrawnRecordGivesWayToACopyStillListed: a mirror lists gamma's
// fresh trace one heartbeat before gamma does (issue 20, attack 3), so the
// ledger's record of the hash is the mirror's and gamma's listing is a
// copy. The mirror then drops the row: withdraw marked the record of the
// hash withdrawn, since its lister (the mirror) no longer lists it, though
// gamma, who published the bytes, still does; the node deleted the text
// and "a withdrawn trace leaves the site entirely". Now gamma's copy,
// still listed, takes the record's place (giveWay, ledger.Promote).
//
// Attack: list a copy of a fresh trace before its author is read, then
// remove the row. Harm: gamma's trace, still published by gamma, leaves
// our site (its copy, reading page, row and feed entries). The rule
// (docs/decisions.md, "Taking a peer's text down"): withdrawn is "its
// author's MANIFEST.md ... no longer lists its hash in any row"; gamma
// lists it, and forgetting a first lister "moves a copy into traces"
// ("Copies") for the same reason.
func TestAWithdrawnRecordGivesWayToACopyStillListed(t *testing.T) {
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

// TestARecordDisputedByItsOwnListerGivesWayToACopyStillListed: the mirror
// of TestAWithdrawnRecordGivesWayToACopyStillListed keeps its row and
// publishes a dispute of the hash instead. A dispute by a trace's own
// lister takes it down ("its author's own"), and the ledger's record of
// the hash was the mirror's, so a peer without standing took gamma's
// text down. Now gamma's copy, still listed and not disputed by gamma,
// takes the record's place, and the mirror's dispute counts as any
// stranger's: for nothing.
func TestARecordDisputedByItsOwnListerGivesWayToACopyStillListed(t *testing.T) {
	p := newFakePeer(t)
	p.publishSeqs("/mallory/", 1, map[manifest.Seq][2]string{1: {"traces/m.md", plainTrace}})
	p.serve("/gamma/MANIFEST.md", []byte("# MANIFEST\n\nagent: gamma\nsequence: 0\n"))
	gamma := p.URL + "/gamma/"
	dir := newNode(t, [][2]string{{"gamma", gamma}, {"mallory", p.URL + "/mallory/"}}, "")
	beat(t, dir, testNow)
	p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", plainTrace}})
	beat(t, dir, testNow.Add(cursorStep))
	h := manifest.HashBytes([]byte(plainTrace))
	if len(loadLedger(t, dir).Copies) != 1 {
		t.Fatal("setup: gamma's listing is not a copy of the mirror's")
	}

	// The mirror keeps its row and disputes the hash; gamma still lists it.
	d := strings.Replace(peersDispute, "sha256:"+zeros, string(h), 1)
	p.publishRows("/mallory/", [][4]string{{"traces/m.md", plainTrace, "knowledge", "pending"}, {"disputes/dispute-" + h.Hex(12) + ".md", d, "dispute", "published"}})
	beat(t, dir, testNow.Add(2*cursorStep))
	beat(t, dir, testNow.Add(3*cursorStep))
	l := loadLedger(t, dir)
	if l.DisputesBy(p.URL+"/mallory/") != 1 {
		t.Fatal("setup: the mirror's dispute was not recorded")
	}
	if tr := l.Traces[h]; tr == nil || tr.TakenDown != "" || tr.AgentURL != gamma {
		t.Errorf("the record of the hash is %+v; want gamma's, published: gamma lists it and disputes nothing", tr)
	}
	if loadCopies(t, dir).ByHash[h] == nil {
		t.Error("gamma's published trace lost its copy when the mirror disputed it")
	}
}

// TestACopyItsListerDroppedIsNotPromoted: when the mirror and gamma both
// drop their rows, whichever of them the node reads first, no listing of
// the bytes is left: the record of the hash ends withdrawn, as a trace its
// author removes always was, and no withdrawn copy is promoted back (the
// two records would otherwise trade places at every read).
func TestACopyItsListerDroppedIsNotPromoted(t *testing.T) {
	p := newFakePeer(t)
	mallory := p.URL + "/mallory/"
	p.publishSeqs("/mallory/", 1, map[manifest.Seq][2]string{1: {"traces/m.md", plainTrace}})
	p.serve("/gamma/MANIFEST.md", []byte("# MANIFEST\n\nagent: gamma\nsequence: 0\n"))
	dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"mallory", mallory}}, "")
	beat(t, dir, testNow)
	p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", plainTrace}})
	beat(t, dir, testNow.Add(cursorStep))
	h := manifest.HashBytes([]byte(plainTrace))
	if len(loadLedger(t, dir).Copies) != 1 {
		t.Fatal("setup: gamma's listing is not a copy of the mirror's")
	}

	for _, base := range []string{"/mallory/", "/gamma/"} {
		p.serve(base+"MANIFEST.md", []byte("# MANIFEST\n\nagent: x\nsequence: 2\n| seq | file | sha256 | type | status | submitted |\n|---|---|---|---|---|---|\n"))
	}
	beat(t, dir, testNow.Add(2*cursorStep))
	beat(t, dir, testNow.Add(3*cursorStep))
	l := loadLedger(t, dir)
	if tr := l.Traces[h]; tr == nil || tr.TakenDown != ledger.Withdrawn {
		t.Errorf("the record of the hash is %+v; want it withdrawn: nobody lists the bytes", tr)
	}
	if len(l.Copies) != 1 {
		t.Errorf("copies %v, want the other listing kept as a copy", l.Copies)
	}
	again := beat(t, dir, testNow.Add(4*cursorStep))
	if again.Changed {
		t.Error("a heartbeat with nothing new changed the state: the records keep trading places")
	}
	if loadCopies(t, dir).ByHash[h] != nil {
		t.Error("a trace nobody lists kept its copy")
	}
}
