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

// TestAnItemClaimedBeforeItsTraceWasWithdrawnIsNotPublished: an
// automatic scorer's item claimed before gamma withdrew its trace, and
// left in progress by a heartbeat that died ("resumed by the heartbeat"),
// or finished by a worker with its result ("a worker's result"), was
// scored, or its result published, at the next heartbeat: a validation
// naming as where the trace is published a URL gamma took it down from.
// Now the resumed item goes back to the queue, noted as waiting for its
// trace (queue.WaitWithdrawn), and the result waits, unmarked; listed
// again, the trace's validation is published.
func TestAnItemClaimedBeforeItsTraceWasWithdrawnIsNotPublished(t *testing.T) {
	for _, owner := range []string{claimOwner, "worker"} {
		t.Run(map[string]string{claimOwner: "resumed by the heartbeat", "worker": "a worker's result"}[owner], func(t *testing.T) {
			claimedThenWithdrawn(t, owner)
		})
	}
}

func claimedThenWithdrawn(t *testing.T, owner string) {
	body := "# Gamma's finding\n\n## Work\n\nGamma measured it.\n"
	h := manifest.HashBytes([]byte(body))
	files := map[string]string{"traces/001-g.md": body}
	gamma := newFakePeer(t)
	gamma.publish("/g/", []string{"traces/001-g.md"}, files)
	dir := newNode(t, [][2]string{{"gamma", gamma.URL + "/g/"}}, "")
	beat(t, dir, testNow) // no standing: gamma's item waits

	q := openQueue(t, dir)
	got, err := q.Claim(queue.Claim{Owner: owner, Now: testNow, Lease: time.Minute})
	if err != nil || len(got) != 1 {
		t.Fatalf("setup: claim %v, %v", got, err)
	}
	if owner != claimOwner {
		res := &queue.Result{Scores: validation.Scores{4, 4, 4, 4, 4, 4}, Scorer: "command", ScoredAt: testNow}
		queuetest.FinishDone(t, q, got[0], owner, res, testNow)
	}
	gamma.publishSeqs("/g/", 1, nil) // gamma withdraws its trace
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	sum := beat(t, dir, testNow.Add(time.Hour))

	val := filepath.Join(dir, node.ValidationsDir, validation.FileName(h))
	if data, err := os.ReadFile(val); err == nil {
		t.Fatalf("a validation of a trace its author withdrew was published:\n%s", data)
	}
	it := queuedItem(t, dir, h)
	switch {
	case it == nil:
		t.Fatal("the trace is not in the queue")
	case owner == claimOwner && (it.Status != queue.StatusQueued || it.Reason != queue.WaitWithdrawn):
		t.Errorf("the resumed item is %s, reason %q; want queued, %q", it.Status, it.Reason, queue.WaitWithdrawn)
	case owner != claimOwner && (it.Status != queue.StatusDone || it.Result == nil || !it.Result.PublishedAt.IsZero()):
		t.Errorf("the worker's result is %s, %+v; want done, unpublished", it.Status, it.Result)
	case owner == claimOwner && sum.Waiting != 1:
		t.Errorf("the summary counts %d items waiting, want the one held", sum.Waiting)
	}

	gamma.publish("/g/", []string{"traces/001-g.md"}, files) // listed again
	beat(t, dir, testNow.Add(2*time.Hour))
	if _, err := os.Stat(val); err != nil {
		t.Errorf("listed again, the trace's validation is not published: %v", err)
	}
	if it := queuedItem(t, dir, h); it == nil || it.Status != queue.StatusDone {
		t.Errorf("listed again, the item is %+v, want done", it)
	}
}
