package node_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// TestAnAutomaticNodeDoesNotPublishAValidationOfAWithdrawnTrace: with an
// automatic scorer, an item whose own peer withdrew its trace before it
// was scored was claimed, scored and published: a validation naming as
// where the trace is published a URL its author took it down from. Now
// the heartbeat with news that finds the trace withdrawn does not claim
// the item and notes it (queue.WaitWithdrawn); the quiet heartbeats after
// it read no history and commit nothing; the heartbeat with news that
// finds the trace listed again scores and publishes it.
func TestAnAutomaticNodeDoesNotPublishAValidationOfAWithdrawnTrace(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := newQuietPeer(t)
	dir := waitingNode(t, p, "heuristic")
	row := p.listRow(0, "") // ada withdraws its trace before it is scored
	standing(t, dir)
	mustBeat(t, dir, now.Add(20*time.Minute)) // with news, and standing: the queue is worked
	if got := publishedValidations(t, dir); len(got) != 0 {
		t.Fatalf("published %v, a validation of a trace its author withdrew", got)
	}
	if it := adaItem(t, dir); it.Status != queue.StatusQueued || it.Reason != queue.WaitWithdrawn {
		t.Fatalf("the withdrawn trace's item is %s, reason %q; want queued, %q", it.Status, it.Reason, queue.WaitWithdrawn)
	}
	gitCommit(t, dir)

	quiet, reads := beatCounting(t, dir, now.Add(time.Hour))
	if quiet.err != nil {
		t.Fatal(quiet.err)
	}
	if reads[node.LedgerFile] != 0 {
		t.Errorf("a quiet heartbeat read the history (the ledger %d times) for an item whose peer withdrew its trace", reads[node.LedgerFile])
	}
	if quiet.sum.Changed {
		t.Error("a quiet heartbeat changed files")
	}
	if out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--", ".", ":(exclude,glob)mesh-state/*.lock").Output(); err != nil || len(out) > 0 {
		t.Errorf("a quiet heartbeat left to commit: %s %v", out, err)
	}

	p.listRow(0, row) // listed again
	mustBeat(t, dir, now.Add(2*time.Hour))
	if it := adaItem(t, dir); it.Status != queue.StatusDone {
		t.Errorf("listed again, ada's item is %s, reason %q; want done", it.Status, it.Reason)
	}
	if got := publishedValidations(t, dir); len(got) != 1 {
		t.Errorf("listed again, published %v; want the trace's validation", got)
	}
}

// publishedValidations returns the validation files in dir's validations/.
func publishedValidations(t *testing.T, dir string) []string {
	t.Helper()
	got, err := filepath.Glob(filepath.Join(dir, node.ValidationsDir, "val-*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return got
}
