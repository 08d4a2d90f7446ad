package heartbeat

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestAQueueItemWhosePeerDoesNotListItsTraceIsDroppedUnpublished: the
// queue holds an item of gamma's trace naming a stranger as the peer
// that listed it (an older node's queue, whose impostor it forgot before
// forgetting dropped a peer's items; a worker's store): the ledger
// records the trace as gamma's alone. Scored, the item fetched the trace
// from the stranger and our validation named the stranger's URL as where
// gamma's trace was published; stored with a worker's result, it was
// marked published and kept. The rule (docs/decisions.md, "Names"):
// before it scores or publishes an item, the node checks that the
// ledger's record of the hash is by the item's peer, or a copy of it
// listed by that peer, and otherwise drops the item unscored and queues
// the trace again from the agent the ledger records (requeueDropped).
func TestAQueueItemWhosePeerDoesNotListItsTraceIsDroppedUnpublished(t *testing.T) {
	for _, stored := range []bool{false, true} {
		t.Run(map[bool]string{false: "waiting to be scored", true: "a worker's result to publish"}[stored], func(t *testing.T) {
			itemOfAnUnlistedPeer(t, stored)
		})
	}
}

func itemOfAnUnlistedPeer(t *testing.T, stored bool) {
	body := "# Gamma's finding\n\n## Work\n\nGamma measured it.\n"
	h := manifest.HashBytes([]byte(body))
	gamma, stranger := newFakePeer(t), newFakePeer(t)
	gamma.publish("/g/", []string{"traces/001-g.md"}, map[string]string{"traces/001-g.md": body})
	stranger.publish("/s/", []string{"traces/001-s.md"}, map[string]string{"traces/001-s.md": body})
	dir := newNode(t, [][2]string{{"gamma", gamma.URL + "/g/"}}, "")
	beat(t, dir, testNow) // no standing: gamma's item waits

	q := openQueue(t, dir)
	if n, err := q.Drop(validation.ID(h)); n != 1 || err != nil {
		t.Fatalf("setup: dropped %d items of gamma's trace (%v)", n, err)
	}
	it := queue.Item{ID: validation.ID(h), Hash: h, From: "stranger", FromURL: stranger.URL + "/s/",
		TraceURL: stranger.URL + "/s/traces/001-s.md", Type: "finding", Seq: 1, QueuedAt: testNow}
	if n, err := q.Enqueue(it); n != 1 || err != nil {
		t.Fatalf("setup: queued %d items (%v)", n, err)
	}
	if stored {
		got, err := q.Claim(queue.Claim{Owner: "w", Now: testNow})
		if err != nil || len(got) != 1 {
			t.Fatalf("setup: claim %v, %v", got, err)
		}
		res := &queue.Result{Scores: validation.Scores{4, 4, 4, 4, 4, 4}, Scorer: "command", ScoredAt: testNow}
		queuetest.FinishDone(t, q, got[0], "w", res, testNow)
	}
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(time.Hour))

	if tr := loadLedger(t, dir).Traces[h]; tr == nil || tr.AgentURL != gamma.URL+"/g/" {
		t.Fatalf("setup: the ledger's record is %+v, want gamma's", tr)
	}
	if data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(h))); err == nil {
		t.Errorf("the stranger's item was published:\n%s", data)
	}
	items, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	requeued := false
	for _, got := range items {
		if got.Hash != h {
			continue
		}
		if got.FromURL != gamma.URL+"/g/" || got.TraceURL != gamma.URL+"/g/traces/001-g.md" {
			t.Errorf("the stranger's item is still in the queue: %s (%q), from %s", got.Status, got.Reason, got.FromURL)
		}
		requeued = got.Status == queue.StatusQueued
	}
	if !requeued {
		t.Errorf("gamma's trace is not queued again from gamma (requeueDropped): %+v", items)
	}
}

// TestAQueueItemUnderAnEarlierSpellingOfItsPeerIsScored: the check that an
// item's peer lists its trace compares the item's URL in its canonical
// form too, since adoptRespelled moves an agent's ledger records to the
// URL AGENTS.md spells, and leaves its queue items as they were: an item
// queued under an earlier spelling is the same agent's, scored, not
// dropped.
func TestAQueueItemUnderAnEarlierSpellingOfItsPeerIsScored(t *testing.T) {
	body := "# Ada's finding\n\n## Work\n\nAda measured it.\n"
	h := manifest.HashBytes([]byte(body))
	p := newFakePeer(t)
	p.publish("/ada/", []string{"traces/001-a.md"}, map[string]string{"traces/001-a.md": body})
	canon, old := p.URL+"/ada/", p.URL+"/%61da/"
	dir := newNode(t, [][2]string{{"ada", canon}}, "gossip:\n  enabled: false\n")
	beat(t, dir, testNow) // no standing: ada's item waits

	respellRecords(t, dir, canon, old)
	q := openQueue(t, dir)
	if n, err := q.Drop(validation.ID(h)); n != 1 || err != nil {
		t.Fatalf("setup: dropped %d items of ada's trace (%v)", n, err)
	}
	it := queue.Item{ID: validation.ID(h), Hash: h, From: "ada", FromURL: old, TraceURL: old + "traces/001-a.md",
		Type: "finding", Seq: 1, QueuedAt: testNow}
	if n, err := q.Enqueue(it); n != 1 || err != nil {
		t.Fatalf("setup: queued %d items (%v)", n, err)
	}
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(time.Hour))

	if tr := loadLedger(t, dir).Traces[h]; tr == nil || tr.AgentURL != canon {
		t.Fatalf("setup: the ledger's record is %+v, want ada's under %s", tr, canon)
	}
	if _, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(h))); err != nil {
		t.Errorf("ada's trace, queued under an earlier spelling of her URL, was not validated: %v", err)
	}
}
