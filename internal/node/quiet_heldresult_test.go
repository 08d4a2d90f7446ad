package node_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/queuetest"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestAQuietNodeLoadsNoHistoryForAWorkersResultHeldForAWithdrawnTrace: a
// worker stored its result for ada's trace, then ada withdrew the trace;
// the heartbeat with news holds the result back, unpublished and unmarked
// (docs/decisions.md, "Names"). Every heartbeat after it loaded the whole
// history to look at the result again, news or not, for weeks. Now a
// heartbeat that finds nothing new, whose only result to publish is one
// held so, reads no history, publishes nothing and commits nothing, and
// gives what a heartbeat computing from the whole history gives.
func TestAQuietNodeLoadsNoHistoryForAWorkersResultHeldForAWithdrawnTrace(t *testing.T) {
	_, dir, _ := heldResultNode(t)
	at := now.Add(time.Hour)
	quiet, reads := beatCounting(t, dir, at)
	if quiet.err != nil {
		t.Fatal(quiet.err)
	}
	if reads[node.LedgerFile] != 0 {
		t.Errorf("a quiet heartbeat read the history (the ledger %d times) for a result held for its withdrawn trace", reads[node.LedgerFile])
	}
	if quiet.sum.Changed || quiet.sum.ValidationsPublished != 0 {
		t.Errorf("a quiet heartbeat changed files (%v) or published %d validations", quiet.sum.Changed, quiet.sum.ValidationsPublished)
	}
	if out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--", ".", ":(exclude,glob)mesh-state/*.lock").Output(); err != nil || len(out) > 0 {
		t.Errorf("a quiet heartbeat left to commit: %s %v", out, err)
	}
	wantHeld(t, dir, manifest.HashBytes([]byte(peerTrace)))
	wantSame(t, dir, fullCopy(t, dir), quiet, at)
}

// TestAWorkersHeldResultIsPublishedAtTheNewsThatListsItsTraceAgain: the
// result held for ada's withdrawn trace, left so by quiet heartbeats, is
// published by the first heartbeat whose news lists the trace again, and
// marked published.
func TestAWorkersHeldResultIsPublishedAtTheNewsThatListsItsTraceAgain(t *testing.T) {
	p, dir, row := heldResultNode(t)
	mustBeat(t, dir, now.Add(time.Hour)) // quiet
	gitCommit(t, dir)
	p.listRow(0, row) // listed again
	sum := mustBeat(t, dir, now.Add(2*time.Hour))
	h := manifest.HashBytes([]byte(peerTrace))
	if sum.ValidationsPublished != 1 {
		t.Errorf("listed again, the heartbeat published %d validations, want the held result's", sum.ValidationsPublished)
	}
	if _, err := os.Stat(filepath.Join(dir, node.ValidationsDir, validation.FileName(h))); err != nil {
		t.Errorf("listed again, the held result is not published: %v", err)
	}
	if it := queueItem(t, dir, h); it.Result == nil || it.Result.PublishedAt.IsZero() {
		t.Errorf("listed again, the held result is not marked published: %+v", it.Result)
	}
}

// TestAQuietNodePublishesAWorkersResultStoredSinceItsNews: beside the
// result held for ada's withdrawn trace, a worker stores its result for
// ada's other trace, still listed, after the heartbeat with news. The
// next heartbeat finds nothing new, and publishes that result all the
// same; the held one still waits.
func TestAQuietNodePublishesAWorkersResultStoredSinceItsNews(t *testing.T) {
	_, dir, _ := heldResultNode(t)
	other := manifest.HashBytes([]byte(otherTrace))
	finishAsWorker(t, dir, other, now.Add(30*time.Minute))
	gitCommit(t, dir)
	sum := mustBeat(t, dir, now.Add(time.Hour))
	if sum.ValidationsPublished != 1 {
		t.Errorf("the heartbeat after a worker stored a result published %d validations, want 1", sum.ValidationsPublished)
	}
	if it := queueItem(t, dir, other); it.Result == nil || it.Result.PublishedAt.IsZero() {
		t.Errorf("the result stored since the news is not marked published: %+v", it.Result)
	}
	wantHeld(t, dir, manifest.HashBytes([]byte(peerTrace)))
}

// otherTrace is ada's second trace, never withdrawn.
var otherTrace = strings.Replace(peerTrace, "held", "bent", 1)

// heldResultNode is a node in a git checkout, its scorer manual, polling
// ada, whose two traces a worker claimed while the node had no standing;
// the worker stored its result for the first (peerTrace), then ada
// withdrew it, and a heartbeat with news and standing held the result
// back; committed. The worker still holds the second (otherTrace). It
// returns the peer, the node and the withdrawn trace's row.
func heldResultNode(t *testing.T) (*quietPeer, string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := newQuietPeer(t)
	p.publish("traces/other.md", otherTrace)
	dir := newNode(t, p.base)
	writeText(t, dir, node.ConfigFile, "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\nscorer: manual\n")
	writeText(t, dir, node.FoundersFile, "someone | http://127.0.0.1:1/someone/\n")
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	mustBeat(t, dir, now) // no standing: both items wait
	q := workerQueue(dir, now.Add(time.Minute))
	if got, err := q.Claim(queue.Claim{Owner: "worker", Now: now.Add(time.Minute), Lease: 24 * time.Hour}); err != nil || len(got) != 2 {
		t.Fatalf("setup: the worker claimed %d items, %v; want ada's two", len(got), err)
	}
	finishAsWorker(t, dir, manifest.HashBytes([]byte(peerTrace)), now.Add(2*time.Minute))
	row := p.listRow(0, "") // ada withdraws the first
	standing(t, dir)
	if sum := mustBeat(t, dir, now.Add(20*time.Minute)); sum.ValidationsPublished != 0 {
		t.Fatalf("setup: the heartbeat that found the trace withdrawn published %d validations", sum.ValidationsPublished)
	}
	wantHeld(t, dir, manifest.HashBytes([]byte(peerTrace)))
	gitCommit(t, dir)
	return p, dir, row
}

// workerQueue is dir's queue as a worker opens it, its clock at at.
func workerQueue(dir string, at time.Time) *queue.File {
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	q.Now = func() time.Time { return at }
	return q
}

// finishAsWorker stores, as the worker holding it, a result for the item
// of the trace of hash h, at at.
func finishAsWorker(t *testing.T, dir string, h manifest.Hash, at time.Time) {
	t.Helper()
	it := queueItem(t, dir, h)
	res := &queue.Result{Scores: validation.Scores{4, 4, 4, 4, 4, 4}, Scorer: "command", ScoredAt: at}
	queuetest.FinishDone(t, workerQueue(dir, at), it, "worker", res, at)
}

// wantHeld fails unless the worker's result for the trace of hash h
// waits, done and unpublished, with no validation of it.
func wantHeld(t *testing.T, dir string, h manifest.Hash) {
	t.Helper()
	if it := queueItem(t, dir, h); it.Status != queue.StatusDone || it.Result == nil || !it.Result.PublishedAt.IsZero() {
		t.Errorf("the result for the withdrawn trace is %s, %+v; want done, unpublished", it.Status, it.Result)
	}
	if data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(h))); err == nil {
		t.Errorf("a validation of a trace its author withdrew was published:\n%s", data)
	}
}

// queueItem returns dir's queue item of the trace of hash h.
func queueItem(t *testing.T, dir string, h manifest.Hash) queue.Item {
	t.Helper()
	it := queuetest.ItemOf(t, queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile))), h)
	if it == nil {
		t.Fatalf("the queue holds no item of %s", h)
	}
	return *it
}
