package queuetest

import (
	"errors"
	"testing"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// testDrop: Drop removes the items at work it names (queued, in progress,
// done with a result still to publish), whoever holds them, and passes
// over a settled item and an ID not held; the holder of a dropped claim
// then gets ErrNotFound, and the dropped traces can be queued again, from
// another peer: a forgotten peer's items give way to the agent that lists
// the trace.
func testDrop(t *testing.T, s queue.Store) {
	enqueue(t, s, items(5)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 3})
	withResult := finish(its[1], queue.StatusDone, T0)
	withResult.Result = &queue.Result{Scores: validation.Scores{4, 3, 5, 2, 4, 3}, Scorer: "command", ScoredAt: T0}
	if err := errors.Join(update(t, s, finish(its[0], queue.StatusFailed, T0), withResult)...); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Drop(); n != 0 || err != nil {
		t.Fatalf("drop of nothing: %d, %v", n, err)
	}
	// 1 is settled, 2 done with a result to publish, 3 in progress, 4 queued.
	n, err := s.Drop(Item(1).ID, Item(2).ID, Item(3).ID, Item(4).ID, Item(4).ID, "ffffffffffff")
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("dropped %d items, want 3 (2, 3 and 4)", n)
	}
	sameIDs(t, "after the drop", list(t, s), Item(1), Item(5))
	if res := update(t, s, finish(its[2], queue.StatusDone, T0)); !errors.Is(res[0], queue.ErrNotFound) {
		t.Errorf("finish of a dropped claim: %v, want ErrNotFound", res[0])
	}
	again := []queue.Item{Item(1), Item(2), Item(3), Item(4)}
	for i := range again {
		again[i].From, again[i].FromURL = "bea", "https://bea.example/"
	}
	added, err := s.Enqueue(again...)
	if err != nil {
		t.Fatal(err)
	}
	if added != 3 {
		t.Errorf("queued %d dropped traces again, want 3 (the settled one stays)", added)
	}
	all := byID(t, s)
	for _, it := range again[1:] {
		if got := all[it.ID]; got.FromURL != "https://bea.example/" || got.Status != queue.StatusQueued {
			t.Errorf("%s queued again: from %s, status %s", it.ID, got.FromURL, got.Status)
		}
	}
}
