package heartbeat

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestAForgottenPeersQueueItemGivesWayToTheAgentThatListsTheTrace: a learned peer
// squatting the name alice lists the bytes of the real alice's pending
// trace, which the node queues under the impostor (it has no standing
// yet, so the item waits; a manual scorer, or the validation budgets,
// leave items waiting as well). A person then lists the real alice: the
// impostor is forgotten with its ledger records (forgetPeer), and alice's
// listing of the bytes is recorded as hers, but the impostor's queue item
// stays, and the queue takes a trace once by hash. The next heartbeat
// scores that item: scoreInput fetches the trace again from the forgotten
// URL, and the node publishes, in its own name, a validation of alice's
// trace whose trace_url is the impostor's; or, when the impostor no
// longer answers, the item fails and alice's trace is never validated by
// this node (the queue holds the failed item by hash, and alice's row is
// seen, so nothing queues it again).
//
// Attack: squat a free name by gossip before a person lists it, and list
// the real agent's fresh trace. Harm: our published vote on alice's trace
// names the forgotten impostor as where it was published (what readers,
// the site and SIGNAL under mesh-2026-1/2 attach to a URL goes to the
// impostor), or alice's trace loses our vote altogether; the node
// fetches from and acts for a peer it forgot.
// The rule (docs/decisions.md, "Names": the forgotten peer goes "with its
// ledger records ... so the agent the name belongs to can be read in
// full", and its items still at work leave the queue, so the trace is
// queued again from the agent that lists it; meshnode check: "trace_url
// is not where trace_hash was fetched").
func TestAForgottenPeersQueueItemGivesWayToTheAgentThatListsTheTrace(t *testing.T) {
	for _, gone := range []bool{false, true} {
		t.Run(map[bool]string{false: "impostor still serving", true: "impostor gone"}[gone], func(t *testing.T) {
			forgottenImpostorsQueueItem(t, gone)
		})
	}
}

func forgottenImpostorsQueueItem(t *testing.T, gone bool) {
	body := "# Alice's finding\n\n## Work\n\nAlice measured it.\n"
	gossip := newFakePeer(t)
	impostor := newFakePeer(t)
	alice := newFakePeer(t)
	gossip.publish("/g/", nil, nil)
	gossip.serve("/g/AGENTS.md", agentsFile([2]string{"alice", impostor.URL + "/x/"}))
	impostor.publish("/x/", []string{"traces/001-s.md"}, map[string]string{"traces/001-s.md": body})
	alice.publish("/a/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": body})
	dir := newNode(t, [][2]string{{"gossip", gossip.URL + "/g/"}}, "")

	beat(t, dir, testNow)                 // learns the impostor as alice
	beat(t, dir, testNow.Add(cursorStep)) // queues its listing; no standing, so it waits
	h := manifest.HashBytes([]byte(body))
	if tr := loadLedger(t, dir).Traces[h]; tr == nil || tr.AgentURL != impostor.URL+"/x/" {
		t.Fatalf("setup: the impostor's listing is %+v", tr)
	}
	if gone {
		impostor.Close()
	}
	// The person lists the real alice; a heartbeat later the node gains
	// standing and scores its queue.
	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gossip", gossip.URL + "/g/"}, [2]string{"alice", alice.URL + "/a/"})))
	beat(t, dir, testNow.Add(2*cursorStep))
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(3*cursorStep))

	tr := loadLedger(t, dir).Traces[h]
	if tr == nil || tr.AgentURL != alice.URL+"/a/" {
		t.Fatalf("setup: alice's trace is %+v, want hers", tr)
	}
	data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(h)))
	if err != nil {
		t.Fatalf("alice's trace was never validated: %v", err)
	}
	v, err := validation.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if v.TraceURL != tr.URL {
		t.Errorf("our validation of alice's trace names %s, the forgotten impostor's file; the ledger has it at %s", v.TraceURL, tr.URL)
	}
}
