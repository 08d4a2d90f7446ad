package queuetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

func testResult(t *testing.T, s queue.Store) {
	enqueue(t, s, items(2)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0})
	r := &queue.Result{
		Scores: validation.Scores{4, 3, 5, 2, 4, 3}, Reasons: map[string][]string{"substance": {"dense", "measured"}},
		Notes: "solid", Scorer: "command", ScoredAt: T0.Add(time.Second),
	}
	failed := finish(its[1], queue.StatusFailed, T0)
	failed.Result = r
	done := finish(its[0], queue.StatusDone, T0.Add(2*time.Second))
	done.Result = r
	res := update(t, s, failed, done)
	if res[0] == nil {
		t.Error("a result with a failed finish was accepted")
	}
	if res[1] != nil {
		t.Fatal(res[1])
	}
	all := byID(t, s)
	got := all[its[0].ID].Result
	if got == nil || got.Scores != r.Scores || got.Notes != r.Notes || got.Scorer != r.Scorer || !got.ScoredAt.Equal(r.ScoredAt) ||
		fmt.Sprint(got.Reasons) != fmt.Sprint(r.Reasons) {
		t.Errorf("stored result %+v, want %+v", got, r)
	}
	if it := all[its[1].ID]; it.Result != nil || it.Status != queue.StatusInProgress {
		t.Errorf("refused update changed the item: %q %+v", it.Status, it.Result)
	}
}

// testPublish: only an item done with a result can be marked published,
// once; the mark is kept with the result.
func testPublish(t *testing.T, s queue.Store) {
	enqueue(t, s, items(3)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0})
	done := finish(its[0], queue.StatusDone, T0)
	done.Result = &queue.Result{Scores: validation.Scores{4, 3, 5, 2, 4, 3}, Scorer: "heuristic", ScoredAt: T0}
	update(t, s, done, finish(its[1], queue.StatusDone, T0))
	at := T0.Add(time.Minute)
	res := update(t, s,
		queue.Update{Kind: queue.Publish, ID: its[0].ID, At: at},
		queue.Update{Kind: queue.Publish, ID: its[0].ID, At: at.Add(time.Minute)},
		queue.Update{Kind: queue.Publish, ID: its[1].ID, At: at},
		queue.Update{Kind: queue.Publish, ID: its[2].ID, At: at},
		queue.Update{Kind: queue.Publish, ID: "nosuchitem00", At: at})
	wants := []error{nil, queue.ErrPublished, queue.ErrNoResult, queue.ErrNoResult, queue.ErrNotFound}
	for i, want := range wants {
		if (want == nil && res[i] != nil) || (want != nil && !errors.Is(res[i], want)) {
			t.Errorf("publish #%d: %v, want %v", i, res[i], want)
		}
	}
	all := byID(t, s)
	if r := all[its[0].ID].Result; r == nil || !r.PublishedAt.Equal(at) || r.Scores != done.Result.Scores {
		t.Errorf("published result %+v, want published at %s with its scores", r, at)
	}
	if it := all[its[2].ID]; it.Status != queue.StatusInProgress || it.Result != nil {
		t.Errorf("a refused publish changed %s: %s %+v", it.ID, it.Status, it.Result)
	}
}

func testList(t *testing.T, s queue.Store) {
	if all, err := s.List(); err != nil || len(all) != 0 {
		t.Fatalf("new store lists %d items, %v", len(all), err)
	}
	enqueue(t, s, Item(3), Item(1), Item(2))
	claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 1})
	all, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "list", all, Item(1), Item(2), Item(3))
	want := Item(2)
	got := all[1]
	if got.Hash != want.Hash || got.From != want.From || got.FromURL != want.FromURL || got.TraceURL != want.TraceURL ||
		got.Type != want.Type || got.Title != want.Title || got.Seq != want.Seq || !got.QueuedAt.Equal(want.QueuedAt) {
		t.Errorf("listed %+v, want the fields of %+v", got, want)
	}
	if all[0].Status != queue.StatusInProgress || all[1].Status != queue.StatusQueued {
		t.Errorf("statuses %q %q", all[0].Status, all[1].Status)
	}
}
