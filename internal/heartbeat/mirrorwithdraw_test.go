package heartbeat

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
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
	p, dir, h := mirrorReadFirst(t, "")

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
// publishes a dispute of the hash naming itself (its own file) instead. A
// dispute by a trace's own lister about itself takes it down ("its
// author's own"), and the ledger's record of the hash was the mirror's,
// so a peer without standing took gamma's text down. Now gamma's copy,
// still listed and not disputed by gamma, takes the record's place, and
// the mirror's dispute counts as any stranger's: for nothing.
func TestARecordDisputedByItsOwnListerGivesWayToACopyStillListed(t *testing.T) {
	p, dir, h := mirrorReadFirst(t, "")
	gamma := p.URL + "/gamma/"

	// The mirror keeps its row and disputes its own file; gamma still
	// lists the bytes.
	d := disputeNaming("mallory", p.URL+"/mallory/", h)
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
	p, dir, h := mirrorReadFirst(t, "")

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

// disputeNaming is a dispute file of claimed hash h about the agent at
// agentURL, of its file traces/x.md.
func disputeNaming(agent, agentURL string, h manifest.Hash) string {
	d := dispute.Dispute{Reporter: "reporter", ReporterURL: "https://reporter.example/", Agent: agent, AgentURL: agentURL,
		FileURL: agentURL + "traces/x.md", Seq: 1, ClaimedHash: h, ServedHash: manifest.HashBytes([]byte("other bytes")),
		ObservedAt: time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)}
	return string(d.Format())
}

// mirrorReadFirst is the mesh of TestAWithdrawnRecordGivesWayToACopyStillListed
// after two heartbeats: the mirror mallory listed gamma's trace before
// gamma did, so the ledger's record of its hash h is mallory's and
// gamma's listing a copy. founders, when set, is FOUNDERS.md with %s for
// the fake peers' URL.
func mirrorReadFirst(t *testing.T, founders string) (p *fakePeer, dir string, h manifest.Hash) {
	t.Helper()
	p = newFakePeer(t)
	p.publishSeqs("/mallory/", 1, map[manifest.Seq][2]string{1: {"traces/m.md", plainTrace}})
	p.serve("/gamma/MANIFEST.md", []byte("# MANIFEST\n\nagent: gamma\nsequence: 0\n"))
	dir = newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"mallory", p.URL + "/mallory/"}}, "")
	if founders != "" {
		write(t, dir, node.FoundersFile, fmt.Sprintf(founders, p.URL))
	}
	beat(t, dir, testNow)
	p.publishSeqs("/gamma/", 1, map[manifest.Seq][2]string{1: {"traces/x.md", plainTrace}})
	beat(t, dir, testNow.Add(cursorStep))
	h = manifest.HashBytes([]byte(plainTrace))
	if len(loadLedger(t, dir).Copies) != 1 {
		t.Fatal("setup: gamma's listing is not a copy of the mirror's")
	}
	return p, dir, h
}

// TestOnlyAListersDisputeOfItselfGivesItsRecordUp: giveWay read any
// dispute by a record's lister claiming the record's hash as the lister
// giving its record up, whatever agent the dispute named. A mirror that
// lists gamma's bytes, read first, and then reports that gamma's file
// served it other bytes (a dispute naming gamma, claiming the hash) had
// its own listing read as withdrawn: gamma's copy was promoted in its
// place, and when the mirror has standing its dispute, now about the
// record in traces, took gamma's text down, though the mirror still
// lists the bytes and disputed nothing of its own. Now a lister gives
// its record up only by a dispute about itself, read as the take-down
// reads "its author's own" (signal.DisputedAgents: by agent_url, else,
// when no agent has that agent_url, by a name only the lister goes by).
func TestOnlyAListersDisputeOfItselfGivesItsRecordUp(t *testing.T) {
	for _, tc := range []struct {
		name, founders, agent, agentURL string
		gaveUp                          bool
	}{
		{"a dispute of gamma's file", "", "gamma", "/gamma/", false},
		{"a dispute of gamma's file by a founder", "mallory | %s/mallory/\n", "gamma", "/gamma/", false},
		{"a dispute of its own file", "", "mallory", "/mallory/", true},
		{"a dispute of its own file, by name and an agent_url no agent has", "", "mallory", "https://elsewhere.example/", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, dir, h := mirrorReadFirst(t, tc.founders)
			mallory, gamma := p.URL+"/mallory/", p.URL+"/gamma/"
			agentURL := tc.agentURL
			if strings.HasPrefix(agentURL, "/") {
				agentURL = p.URL + agentURL
			}
			p.publishRows("/mallory/", [][4]string{{"traces/m.md", plainTrace, "knowledge", "pending"},
				{"disputes/dispute-" + h.Hex(12) + ".md", disputeNaming(tc.agent, agentURL, h), "dispute", "published"}})
			beat(t, dir, testNow.Add(2*cursorStep))
			beat(t, dir, testNow.Add(3*cursorStep))
			l := loadLedger(t, dir)
			if l.DisputesBy(mallory) != 1 {
				t.Fatal("setup: the mirror's dispute was not recorded")
			}
			want, copied := mallory, gamma
			if tc.gaveUp {
				want, copied = gamma, mallory
			}
			if tr := l.Traces[h]; tr == nil || tr.AgentURL != want || tr.TakenDown != "" {
				t.Errorf("the record of the hash is %+v; want %s's, published", tr, want)
			}
			if l.Copies[ledger.CopyKey(copied, h)] == nil {
				t.Errorf("copies %v; want %s's listing kept as a copy", l.Copies, copied)
			}
			if loadCopies(t, dir).ByHash[h] == nil {
				t.Error("the bytes both still list lost their copy")
			}
		})
	}
}

// TestACopyWhoseListerDisputesAnotherAgentsFileIsPromoted: a copy was
// not promoted when its lister published any dispute claiming its hash.
// gamma, whose listing is a copy of the mirror's, reports that the
// mirror's file served it other bytes (a dispute naming the mirror); the
// mirror then drops its row, so its record is withdrawn, and gamma's
// copy, still listed, stayed out: gamma's text left the site though
// gamma publishes it. Now only gamma's dispute of its own file keeps its
// copy out.
func TestACopyWhoseListerDisputesAnotherAgentsFileIsPromoted(t *testing.T) {
	p, dir, h := mirrorReadFirst(t, "")
	mallory, gamma := p.URL+"/mallory/", p.URL+"/gamma/"
	p.publishRows("/gamma/", [][4]string{{"traces/x.md", plainTrace, "knowledge", "pending"},
		{"disputes/dispute-" + h.Hex(12) + ".md", disputeNaming("mallory", mallory, h), "dispute", "published"}})
	p.serve("/mallory/MANIFEST.md", []byte("# MANIFEST\n\nagent: mallory\nsequence: 2\n| seq | file | sha256 | type | status | submitted |\n|---|---|---|---|---|---|\n"))
	beat(t, dir, testNow.Add(2*cursorStep))
	beat(t, dir, testNow.Add(3*cursorStep))
	l := loadLedger(t, dir)
	if l.DisputesBy(gamma) != 1 {
		t.Fatal("setup: gamma's dispute was not recorded")
	}
	if tr := l.Traces[h]; tr == nil || tr.AgentURL != gamma || tr.TakenDown != "" {
		t.Errorf("the record of the hash is %+v; want gamma's, published: gamma lists it and disputes only the mirror's file", tr)
	}
	if loadCopies(t, dir).ByHash[h] == nil {
		t.Error("gamma's published trace lost its copy")
	}
}
