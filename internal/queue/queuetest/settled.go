package queuetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

func active(t *testing.T, s queue.Store) queue.Active {
	t.Helper()
	a, err := s.Active()
	if err != nil {
		t.Fatalf("active: %v", err)
	}
	return a
}

func sameCounts(t *testing.T, what string, got map[string]int, done, failed, skipped int) {
	t.Helper()
	want := map[string]int{queue.StatusDone: done, queue.StatusFailed: failed, queue.StatusSkipped: skipped}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: settled %v, want %v", what, got, want)
	}
}

// testActive: Active gives the items at work (queued, in progress, done
// with a result still to publish), oldest first, and counts the settled
// ones by status; a published result settles its item; List still gives
// every item.
func testActive(t *testing.T, s queue.Store) {
	a := active(t, s)
	if len(a.Items) != 0 || a.Expired {
		t.Fatalf("new store: active %+v", a)
	}
	sameCounts(t, "new store", a.Settled, 0, 0, 0)
	enqueue(t, s, items(6)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 4})
	withResult := finish(its[2], queue.StatusDone, T0)
	withResult.Result = &queue.Result{Scores: validation.Scores{4, 3, 5, 2, 4, 3}, Scorer: "command", ScoredAt: T0}
	res := update(t, s, finish(its[0], queue.StatusDone, T0), finish(its[1], queue.StatusFailed, T0), withResult,
		queue.Update{Kind: queue.Decide, ID: Item(5).ID, Status: queue.StatusSkipped, Reason: "a person said so", At: T0})
	if err := errors.Join(res...); err != nil {
		t.Fatal(err)
	}
	a = active(t, s)
	sameIDs(t, "active", a.Items, Item(3), Item(4), Item(6))
	if a.Items[0].Status != queue.StatusDone || a.Items[0].Result == nil || a.Items[1].Status != queue.StatusInProgress {
		t.Errorf("active items: %+v", a.Items)
	}
	sameCounts(t, "after settling three", a.Settled, 1, 1, 1)
	if a.Expired {
		t.Error("items settled now are expired")
	}
	if res := update(t, s, queue.Update{Kind: queue.Publish, ID: Item(3).ID, At: T0}); res[0] != nil {
		t.Fatal(res[0])
	}
	a = active(t, s)
	sameIDs(t, "active after publishing", a.Items, Item(4), Item(6))
	sameCounts(t, "after publishing", a.Settled, 2, 1, 1)
	sameIDs(t, "list", list(t, s), items(6)...)
	// A settled item forgets its title, which only a waiting item's
	// scorer reads; an item at work keeps it, a result to publish too.
	for _, it := range list(t, s) {
		if it.Settled() != (it.Title == "") || it.Type == "" {
			t.Errorf("%s (%s, settled %t) lists with title %q, type %q", it.ID, it.Status, it.Settled(), it.Title, it.Type)
		}
	}
	// A settled item is still found by an update: a person's decision,
	// and a second publish, refused as such.
	res = update(t, s, queue.Update{Kind: queue.Decide, ID: Item(1).ID, Status: queue.StatusFailed, Reason: "on second thought", At: T0},
		queue.Update{Kind: queue.Publish, ID: Item(3).ID, At: T0})
	if res[0] != nil || !errors.Is(res[1], queue.ErrPublished) {
		t.Errorf("updates of settled items: %v", res)
	}
	sameCounts(t, "after a decision on a settled item", active(t, s).Settled, 1, 2, 1)
	if it := byID(t, s)[Item(1).ID]; it.Status != queue.StatusFailed || it.Reason != "on second thought" {
		t.Errorf("decided settled item: %q %q", it.Status, it.Reason)
	}
}

// testBackToWork: a settled item can become one at work again: a done
// item whose result waits, decided failed, settles; decided done again,
// it is at work, its result still to publish, counted no more among the
// settled; published, it settles for good. Each answer is the same
// whichever file or table row it moved through.
func testBackToWork(t *testing.T, s queue.Store) {
	enqueue(t, s, items(2)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0})
	done := finish(its[0], queue.StatusDone, T0)
	done.Result = &queue.Result{Scores: validation.Scores{4, 3, 5, 2, 4, 3}, Scorer: "command", ScoredAt: T0}
	update(t, s, done, finish(its[1], queue.StatusDone, T0))
	decide := func(status string, at time.Duration) {
		t.Helper()
		u := queue.Update{Kind: queue.Decide, ID: Item(1).ID, Status: status, Reason: "a person said so", At: T0.Add(at)}
		if res := update(t, s, u); res[0] != nil {
			t.Fatal(res[0])
		}
	}
	decide(queue.StatusFailed, time.Minute)
	a := active(t, s)
	sameIDs(t, "active once decided failed", a.Items)
	sameCounts(t, "once decided failed", a.Settled, 1, 1, 0)
	decide(queue.StatusDone, 2*time.Minute)
	a = active(t, s)
	sameIDs(t, "active once decided done again", a.Items, Item(1))
	sameCounts(t, "once decided done again", a.Settled, 1, 0, 0)
	if len(a.Items) == 1 {
		if it := a.Items[0]; it.Status != queue.StatusDone || it.Result == nil || !it.Result.PublishedAt.IsZero() || it.Version != its[0].Version+3 {
			t.Errorf("item back at work: %+v, want done at version %d, its result still to publish", it, its[0].Version+3)
		}
	}
	sameIDs(t, "list", list(t, s), items(2)...)
	if res := update(t, s, queue.Update{Kind: queue.Publish, ID: Item(1).ID, At: T0.Add(3 * time.Minute)}); res[0] != nil {
		t.Fatal(res[0])
	}
	a = active(t, s)
	sameIDs(t, "active once published", a.Items)
	sameCounts(t, "once published", a.Settled, 2, 0, 0)
}

// testSettledDedup: a settled item's trace is not queued again, by its
// own peer or another, and its ID is not given to another trace.
func testSettledDedup(t *testing.T, s queue.Store) {
	enqueue(t, s, items(2)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0})
	update(t, s, finish(its[0], queue.StatusDone, T0), finish(its[1], queue.StatusFailed, T0))
	again, elsewhere, clash := Item(1), Item(2), Item(3)
	elsewhere.From, elsewhere.FromURL = "bob", "https://bob.example/traces/"
	clash.ID, clash.FromURL = Item(1).ID, "https://carol.example/traces/"
	added, err := s.Enqueue(again, elsewhere, clash, Item(4))
	if refused, ok := queue.ItemErrors(err); !ok || len(refused) != 1 || refused[0].Hash != clash.Hash {
		t.Errorf("enqueue beside settled items: %v, want the clash of IDs refused alone", err)
	}
	if added != 1 {
		t.Errorf("added %d, want the new trace alone", added)
	}
	all := byID(t, s)
	if len(all) != 3 || all[Item(1).ID].Status != queue.StatusDone || all[Item(2).ID].Status != queue.StatusFailed {
		t.Errorf("items after enqueueing settled traces again: %+v", all)
	}
}

// testSettledTraceUnderAnotherID: a trace settled under one peer, listed
// by another under an ID that is not the one its hash gives
// (validation.ID), is still found by its hash and not queued again. The
// file store finds it through that ID, taken from validation.ID: a copy
// of the rule would drift the day it changes.
func testSettledTraceUnderAnotherID(t *testing.T, s queue.Store) {
	settled := Item(1)
	settled.ID = validation.ID(settled.Hash)
	enqueue(t, s, settled)
	if res := update(t, s, queue.Update{Kind: queue.Decide, ID: settled.ID, Status: queue.StatusDone, Reason: "pass", At: T0}); res[0] != nil {
		t.Fatal(res[0])
	}
	listed := Item(1)
	listed.ID, listed.From, listed.FromURL = "listed-by-bob", "bob", "https://bob.example/traces/"
	if added, err := s.Enqueue(listed); err != nil || added != 0 {
		t.Errorf("enqueue a settled trace under another ID: added %d, %v; want it found by its hash", added, err)
	}
	all := byID(t, s)
	if len(all) != 1 || all[settled.ID].Status != queue.StatusDone {
		t.Errorf("items: %+v, want the settled one alone", all)
	}
}

// testRetention: settled items are counted, and said expired, until a
// write drops them SettledRetention after they settled; Update of no item
// is such a write. Items at work stay, however old.
func testRetention(t *testing.T, s queue.Store, now *time.Time) {
	enqueue(t, s, items(4)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 2})
	update(t, s, finish(its[0], queue.StatusDone, T0), finish(its[1], queue.StatusFailed, T0.Add(time.Hour)))
	*now = T0.Add(queue.SettledRetention + time.Minute)
	a := active(t, s)
	if !a.Expired {
		t.Error("an item settled longer ago than the retention is not said expired")
	}
	sameCounts(t, "before the write", a.Settled, 1, 1, 0)
	update(t, s)
	a = active(t, s)
	if a.Expired {
		t.Error("still expired after a write")
	}
	sameCounts(t, "after the write", a.Settled, 0, 1, 0)
	sameIDs(t, "active after the write", a.Items, Item(3), Item(4))
	sameIDs(t, "list after the write", list(t, s), Item(2), Item(3), Item(4))
}

// testExpiredQueuedAgain: an item settled longer ago than the retention
// counts for nothing, whether or not a write has dropped it yet, so the
// same bytes listed again (here by another peer, under another ID) are
// queued as new on every store: a store must not answer by when it last
// wrote.
func testExpiredQueuedAgain(t *testing.T, s queue.Store, now *time.Time) {
	enqueue(t, s, items(1)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0})
	update(t, s, finish(its[0], queue.StatusDone, T0))
	*now = T0.Add(queue.SettledRetention + time.Minute)
	again := Item(1)
	again.ID, again.From, again.FromURL = "listed-by-bob", "bob", "https://bob.example/traces/"
	if added, err := s.Enqueue(again); err != nil || added != 1 {
		t.Fatalf("enqueue a trace settled past the retention: added %d, %v; want it queued again", added, err)
	}
	a := active(t, s)
	sameIDs(t, "active after queuing it again", a.Items, again)
	sameCounts(t, "settled after queuing it again", a.Settled, 0, 0, 0)
}

// testResultOutlivesRetention: a done item whose result is still to
// publish is at work, not settled, so no write drops it however long
// ago it was scored; published, it settles and leaves like any other.
func testResultOutlivesRetention(t *testing.T, s queue.Store, now *time.Time) {
	enqueue(t, s, items(1)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0})
	done := finish(its[0], queue.StatusDone, T0)
	done.Result = &queue.Result{Scores: validation.Scores{4, 3, 5, 2, 4, 3}, Scorer: "command", ScoredAt: T0}
	update(t, s, done)
	*now = T0.Add(queue.SettledRetention + time.Minute)
	update(t, s)
	a := active(t, s)
	sameIDs(t, "active after a write past the retention", a.Items, Item(1))
	if len(a.Items) == 1 && (a.Items[0].Result == nil || !a.Items[0].Result.PublishedAt.IsZero()) {
		t.Errorf("result to publish after a write: %+v", a.Items[0].Result)
	}
	if res := update(t, s, queue.Update{Kind: queue.Publish, ID: Item(1).ID, At: *now}); res[0] != nil {
		t.Fatal(res[0])
	}
	*now = now.Add(queue.SettledRetention + time.Minute)
	update(t, s)
	sameIDs(t, "list once published and past the retention", list(t, s))
}

func list(t *testing.T, s queue.Store) []queue.Item {
	t.Helper()
	all, err := s.List()
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	return all
}
