package worker_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/worker"
	"github.com/meshnode/meshnode/internal/score"
)

// TestAWorkerLeavesAnItemWaitingForItsWithdrawnTrace: the node notes a
// queued item whose peer withdrew its trace (queue.WaitWithdrawn). A
// worker claimed it, scored it and stored the result, which the node
// then published: a validation naming a URL the author took the trace
// down from; and a worker run until empty waited for it forever. Now the
// worker scores the other item, leaves the noted one queued, and returns.
func TestAWorkerLeavesAnItemWaitingForItsWithdrawnTrace(t *testing.T) {
	its := mesh(t, 2)
	s := queue.Open(filepath.Join(t.TempDir(), "queue.json"))
	if _, err := s.Enqueue(its...); err != nil {
		t.Fatal(err)
	}
	res, err := s.Update(queue.Update{Kind: queue.Note, ID: its[0].ID, Reason: queue.WaitWithdrawn, At: time.Now()})
	if err != nil || res[0] != nil {
		t.Fatalf("setup: note %v, %v", res, err)
	}
	scorer, err := score.New("heuristic", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := &worker.Worker{Store: s, Owner: "w1", Scorer: scorer, Poll: time.Millisecond, UntilEmpty: true,
		Client: fetch.New(fetch.Options{AllowPrivate: true, IgnoreRobots: true})}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("the worker run until empty waited for an item noted as waiting for its trace until its context ended")
	}
	all, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]queue.Item{}
	for _, it := range all {
		got[it.ID] = it
	}
	if it := got[its[0].ID]; it.Status != queue.StatusQueued || it.Reason != queue.WaitWithdrawn || it.Result != nil {
		t.Errorf("the noted item is %s (%q), result %v; want queued, noted, unscored", it.Status, it.Reason, it.Result)
	}
	if it := got[its[1].ID]; st.Done != 1 || it.Status != queue.StatusDone {
		t.Errorf("done %d, the other item %s (%q); want 1, done", st.Done, it.Status, it.Reason)
	}
}
