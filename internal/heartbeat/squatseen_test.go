package heartbeat

import (
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestAForgottenImpostorsKeyStatementHidesNoOnesFile: a learned peer
// squatting a name lists, under log/ (files the node marks seen and never
// records in the ledger), the bytes of the real agent's trace. When the
// person lists the real agent and the impostor is forgotten, that hash
// must not stay seen for everybody: it was written to seen.json as seen
// from no peer, and the real agent's trace was skipped for 90 days.
func TestAForgottenImpostorsKeyStatementHidesNoOnesFile(t *testing.T) {
	body := "# A\n\n## Work\n\nAlice's second trace.\n"
	gossip := newFakePeer(t)
	impostor := newFakePeer(t)
	alice := newFakePeer(t)
	gossip.publish("/g/", nil, nil)
	gossip.serve("/g/AGENTS.md", agentsFile([2]string{"alice", impostor.URL + "/x/"}))
	impostor.publish("/x/", []string{"log/key-1.md"}, map[string]string{"log/key-1.md": body})
	alice.publish("/a/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": "# First\n\n## Work\n\nOne.\n"})
	dir := newNode(t, [][2]string{{"gossip", gossip.URL + "/g/"}}, "")

	beat(t, dir, testNow)                 // learns the impostor as alice
	beat(t, dir, testNow.Add(cursorStep)) // reads its log/ file
	h := manifest.HashBytes([]byte(body))
	st := loadState(t, dir)
	if !st.SeenFrom(impostor.URL+"/x/", h) {
		t.Fatal("setup: the impostor's file was not read")
	}
	// The person lists the real alice: the impostor is forgotten.
	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gossip", gossip.URL + "/g/"}, [2]string{"alice", alice.URL + "/a/"})))
	beat(t, dir, testNow.Add(2*cursorStep))
	// Alice publishes the bytes the impostor listed first.
	alice.publish("/a/", []string{"traces/001-a.md", "traces/002-a.md"}, map[string]string{
		"traces/001-a.md": "# First\n\n## Work\n\nOne.\n", "traces/002-a.md": body})
	beat(t, dir, testNow.Add(3*cursorStep))
	if alice.hitsOf("/a/traces/002-a.md") == 0 {
		t.Errorf("alice's trace was never fetched: skipped as seen")
	}
	if tr := loadLedger(t, dir).Traces[h]; tr == nil || tr.AgentURL != alice.URL+"/a/" {
		t.Errorf("alice's trace is %+v, want recorded as hers", tr)
	}

}
