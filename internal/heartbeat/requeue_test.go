package heartbeat

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestAMovedAgentsWaitingTraceIsValidatedAtItsNewURL: alice's pending
// trace waits in the queue under her old URL (the node has no standing
// yet) when a person moves her to a new URL in AGENTS.md. Her records
// and her queue item follow her (adoptMoved, moveAgent), so the item
// names the peer the ledger says lists the trace, and our validation
// names the file at the new URL. Her row is seen already, so an item
// left at the old URL, dropped as no longer listed by its peer
// (listedByItsPeer), would leave the trace without our vote.
func TestAMovedAgentsWaitingTraceIsValidatedAtItsNewURL(t *testing.T) {
	m := newMovingAgent(t)
	dir := newNode(t, [][2]string{{"gamma", m.url("/gamma/")}, {"alice", m.url("/old/")}}, "")
	beat(t, dir, testNow) // queues alice's trace; no standing, so it waits
	body := "# Alice's work\n\n## Work\n\nMeasured once.\n"
	h := manifest.HashBytes([]byte(body))
	if it := queuedItem(t, dir, h); it == nil || it.FromURL != m.url("/old/") {
		t.Fatalf("setup: alice's trace is queued as %+v", it)
	}

	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gamma", m.url("/gamma/")}, [2]string{"alice", m.url("/new/")})))
	beat(t, dir, testNow.Add(cursorStep)) // the move
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(2*cursorStep)) // standing: the item, moved, is scored
	beat(t, dir, testNow.Add(3*cursorStep))

	data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(h)))
	if err != nil {
		t.Fatalf("alice's trace was never validated: %v", err)
	}
	v, err := validation.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := m.url("/new/traces/001-work.md"); v.TraceURL != want {
		t.Errorf("our validation names %s, want alice's file at her new URL %s", v.TraceURL, want)
	}
}

// queuedItem is the queue's item of the trace h in the node at dir, nil
// when it has none.
func queuedItem(t *testing.T, dir string, h manifest.Hash) *queue.Item {
	t.Helper()
	return queuetest.ItemOf(t, queue.Open(filepath.Join(dir, node.QueueFile)), h)
}

// TestAWithdrawnMirrorsWaitingItemGivesWayToTheAuthor: a mirror lists
// gamma's fresh trace first, so the queue's item of it names the mirror;
// it waits (no standing). The mirror then drops its row and gamma's
// listing takes the record's place (giveWay). The mirror's record, now a
// copy marked withdrawn, lists the trace no more: its item is dropped, and
// the trace queued again from gamma, whose file our validation names.
// Counted as listed, the item fetched the trace from the mirror, which no
// longer served it, and failed: gamma's trace went without our vote.
func TestAWithdrawnMirrorsWaitingItemGivesWayToTheAuthor(t *testing.T) {
	p, dir, h := mirrorReadFirst(t, "")
	if it := queuedItem(t, dir, h); it == nil || it.FromURL != p.URL+"/mallory/" {
		t.Fatalf("setup: the trace is queued as %+v, want under the mirror", it)
	}

	p.serve("/mallory/MANIFEST.md", []byte("# MANIFEST\n\nagent: mallory\nsequence: 2\n| seq | file | sha256 | type | status | submitted |\n|---|---|---|---|---|---|\n"))
	p.serve("/mallory/traces/m.md", nil)
	beat(t, dir, testNow.Add(2*cursorStep)) // gamma's listing takes the record's place
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(3*cursorStep)) // the mirror's item dropped, gamma's queued
	beat(t, dir, testNow.Add(4*cursorStep)) // and scored

	data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(h)))
	if err != nil {
		t.Fatalf("gamma's trace was never validated: %v", err)
	}
	v, err := validation.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := p.URL + "/gamma/traces/x.md"; v.TraceURL != want {
		t.Errorf("our validation names %s, want gamma's file %s", v.TraceURL, want)
	}
}

// TestAForgottenImpostorsItemGivesWayToACopyAlreadyRead: an impostor
// squatting the name alice lists carol's fresh trace before carol is
// read, so the queue's item names the impostor and carol's listing is a
// copy, never queued. A person lists the real alice: the impostor is
// forgotten, carol's copy takes the record's place (Ledger.Forget) and the
// impostor's item is dropped (dropItemsOf). Carol's row is seen already,
// so nothing would read it again: her trace is queued from the ledger's
// record, and our validation names her file.
func TestAForgottenImpostorsItemGivesWayToACopyAlreadyRead(t *testing.T) {
	body := "# Carol's finding\n\n## Work\n\nCarol measured it.\n"
	h := manifest.HashBytes([]byte(body))
	gossip, impostor, carol, alice := newFakePeer(t), newFakePeer(t), newFakePeer(t), newFakePeer(t)
	gossip.publish("/g/", nil, nil)
	gossip.serve("/g/AGENTS.md", agentsFile([2]string{"alice", impostor.URL + "/x/"}))
	impostor.publish("/x/", []string{"traces/001-s.md"}, map[string]string{"traces/001-s.md": body})
	carol.publish("/c/", nil, nil)
	alice.publish("/a/", nil, nil)
	dir := newNode(t, [][2]string{{"gossip", gossip.URL + "/g/"}, {"carol", carol.URL + "/c/"}}, "")
	beat(t, dir, testNow)                 // learns the impostor as alice
	beat(t, dir, testNow.Add(cursorStep)) // queues its listing; no standing, so it waits
	carol.publish("/c/", []string{"traces/001-c.md"}, map[string]string{"traces/001-c.md": body})
	beat(t, dir, testNow.Add(2*cursorStep)) // carol's listing, a copy
	if it := queuedItem(t, dir, h); it == nil || it.FromURL != impostor.URL+"/x/" {
		t.Fatalf("setup: the trace is queued as %+v, want under the impostor", it)
	}

	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gossip", gossip.URL + "/g/"},
		[2]string{"carol", carol.URL + "/c/"}, [2]string{"alice", alice.URL + "/a/"})))
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(3*cursorStep)) // the impostor forgotten, carol's trace queued
	beat(t, dir, testNow.Add(4*cursorStep)) // and scored

	data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(h)))
	if err != nil {
		t.Fatalf("carol's trace was never validated: %v", err)
	}
	v, err := validation.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := carol.URL + "/c/traces/001-c.md"; v.TraceURL != want {
		t.Errorf("our validation names %s, want carol's file %s", v.TraceURL, want)
	}
}
