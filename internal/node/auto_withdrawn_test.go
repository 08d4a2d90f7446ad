package node_test

import (
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
	p, dir, row := withdrawnTraceNode(t, "heuristic") // with standing: the queue is worked
	if got := publishedValidations(t, dir); len(got) != 0 {
		t.Fatalf("published %v, a validation of a trace its author withdrew", got)
	}
	if it := adaItem(t, dir); it.Status != queue.StatusQueued || it.Reason != queue.WaitWithdrawn {
		t.Fatalf("the withdrawn trace's item is %s, reason %q; want queued, %q", it.Status, it.Reason, queue.WaitWithdrawn)
	}
	gitCommit(t, dir)
	wantQuietBeat(t, dir, now.Add(time.Hour))

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
