package heartbeat

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestAnotherAgentsMismatchOfAClaimSpendsNoAgentsDispute: the node
// publishes one dispute file per claimed hash and disputed agent
// (publishDisputes): disputes/dispute-<12 hex>.md for the first, and
// dispute-<12 hex>-<12 hex of the agent URL's sha256>.md for another
// agent's mismatch of the same claim. A sock puppet lists, a heartbeat
// before gamma, a row claiming the hash gamma's row claims, and serves
// wrong bytes too: our dispute of the puppet keeps the claim's name, and
// gamma's own mismatch, found a heartbeat later, is published beside it.
//
// Attack: gamma (or a friend) runs a second peer the node polls and lists
// the hashes gamma is about to claim, before gamma. Harm, before: gamma's
// hash mismatch left no dispute in our published files (the puppet's
// held the only name), so no reader of them (SIGNAL's mismatch rule
// under mesh-2026-3 included) ever saw it; the puppet took the blame it
// could afford. The rule (docs/protocol.md §7.4, docs/security.md "bytes
// that do not match the manifest's sha256": "a rejection in the ledger
// and a dispute").
func TestAnotherAgentsMismatchOfAClaimSpendsNoAgentsDispute(t *testing.T) {
	p := newFakePeer(t)
	claimed := manifest.HashBytes([]byte("# What gamma claims\n"))
	serveLying := func(base, agent string) {
		m := manifest.Manifest{Agent: agent, Sequence: 1, Entries: []manifest.Entry{
			{Seq: 1, Hash: claimed, File: "traces/x.md", Type: "knowledge", Status: "pending"},
		}}
		p.serve(base+"traces/x.md", []byte("# Something else, served by "+agent+"\n"))
		p.serve(base+"MANIFEST.md", m.Format())
	}
	serveLying("/puppet/", "puppet")
	p.serve("/gamma/MANIFEST.md", []byte("# MANIFEST\n\nagent: gamma\nsequence: 0\n"))
	dir := newNode(t, [][2]string{{"gamma", p.URL + "/gamma/"}, {"puppet", p.URL + "/puppet/"}}, "")
	beat(t, dir, testNow)
	serveLying("/gamma/", "gamma")
	beat(t, dir, testNow.Add(cursorStep))

	l := loadLedger(t, dir)
	if _, ok := l.Rejected[p.URL+"/gamma/traces/x.md"]; !ok {
		t.Fatal("setup: gamma's mismatch was not rejected")
	}
	entries, err := os.ReadDir(filepath.Join(dir, node.DisputesDir))
	if err != nil {
		t.Fatal(err)
	}
	about := map[string]string{} // agent URL → file name
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, node.DisputesDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		d, err := dispute.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		about[d.AgentURL] = e.Name()
	}
	if _, ok := about[p.URL+"/gamma/"]; !ok {
		t.Errorf("no published dispute names gamma's mismatch; the disputes name %v", about)
	}
	if got, want := about[p.URL+"/puppet/"], dispute.FileName(claimed); got != want {
		t.Errorf("the first dispute of the claim, the puppet's, is named %q, want %q as before", got, want)
	}
	if len(entries) != 2 {
		t.Errorf("%d dispute files for two agents' mismatches of one claim, want 2: %v", len(entries), about)
	}
}
