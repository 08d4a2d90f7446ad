package queuetest

import (
	"errors"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
)

func testCompareAndSwap(t *testing.T, s queue.Store) {
	enqueue(t, s, items(2)...)
	a := claim(t, s, queue.Claim{Owner: "a", Now: T0, Max: 1})[0]
	stale, stranger := finish(a, queue.StatusDone, T0), finish(a, queue.StatusDone, T0)
	stale.Version--
	stranger.Owner = "b"
	missing := finish(a, queue.StatusDone, T0)
	missing.ID = "ffffffffffff"
	queued := finish(Item(2), queue.StatusDone, T0)
	queued.Owner, queued.Version = "a", 1
	res := update(t, s, stale, stranger, missing, queued, finish(a, queue.StatusDone, T0))
	for i, want := range []error{queue.ErrConflict, queue.ErrConflict, queue.ErrNotFound, queue.ErrConflict, nil} {
		if (want == nil && res[i] != nil) || (want != nil && !errors.Is(res[i], want)) {
			t.Errorf("update %d: %v, want %v", i, res[i], want)
		}
	}
	// The same finish twice: the second presents a version that is gone.
	if res := update(t, s, finish(a, queue.StatusDone, T0)); !errors.Is(res[0], queue.ErrConflict) {
		t.Errorf("second finish: %v, want a conflict", res[0])
	}
	// "acked" is not a status a validation reaches (docs/queue.md).
	if res := update(t, s, queue.Update{Kind: queue.Finish, ID: a.ID, Owner: "a", Version: a.Version, Status: "acked"}); res[0] == nil {
		t.Error("a finish with a status that is not terminal applied")
	}
}

func testStatuses(t *testing.T, s queue.Store) {
	enqueue(t, s, items(4)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 3})
	at := T0.Add(time.Second)
	res := update(t, s,
		finish(its[0], queue.StatusDone, at),
		finish(its[1], queue.StatusFailed, at),
		queue.Update{Kind: queue.Release, ID: its[2].ID, Owner: "w", Version: its[2].Version, At: at},
		queue.Update{Kind: queue.Decide, ID: Item(4).ID, Status: queue.StatusSkipped, Reason: "a person said so", At: at},
	)
	if err := errors.Join(res...); err != nil {
		t.Fatal(err)
	}
	all := byID(t, s)
	want := map[string][2]any{
		Item(1).ID: {queue.StatusDone, 3}, Item(2).ID: {queue.StatusFailed, 3},
		Item(3).ID: {queue.StatusQueued, 3}, Item(4).ID: {queue.StatusSkipped, 2},
	}
	for id, w := range want {
		it := all[id]
		if it.Status != w[0] || it.Version != w[1] || it.Owner != "" || !it.LeaseExpires.IsZero() || !it.UpdatedAt.Equal(at) {
			t.Errorf("%s: status %q version %d owner %q lease %v updated %v; want %v %v, no claim", id, it.Status, it.Version, it.Owner, it.LeaseExpires, it.UpdatedAt, w[0], w[1])
		}
	}
	// A person's decision beats a claim: its holder then gets a conflict.
	held := claim(t, s, queue.Claim{Owner: "w", Now: at})[0]
	res = update(t, s, queue.Update{Kind: queue.Decide, ID: held.ID, Status: queue.StatusDone, Reason: "scored by hand", At: at},
		finish(held, queue.StatusFailed, at))
	if res[0] != nil || !errors.Is(res[1], queue.ErrConflict) {
		t.Errorf("decide over a claim: %v, then the holder's finish: %v", res[0], res[1])
	}
	if it := byID(t, s)[held.ID]; it.Status != queue.StatusDone || it.Reason != "scored by hand" {
		t.Errorf("decided item: %q %q", it.Status, it.Reason)
	}
}

func testNothingSettled(t *testing.T, s queue.Store) {
	enqueue(t, s, items(2)...)
	claim(t, s, queue.Claim{Owner: "gone", Now: T0, Max: 1, Lease: time.Minute})
	// A month passes; reading the queue and claiming nothing settle anything.
	late := T0.Add(30 * 24 * time.Hour)
	for range 2 {
		if _, err := s.List(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Queued(); err != nil {
			t.Fatal(err)
		}
	}
	all := byID(t, s)
	if it := all[Item(1).ID]; it.Status != queue.StatusInProgress || it.Owner != "gone" {
		t.Errorf("abandoned claim became %q by %q", it.Status, it.Owner)
	}
	if it := all[Item(2).ID]; it.Status != queue.StatusQueued {
		t.Errorf("untouched item became %q", it.Status)
	}
	// The abandoned claim is taken over, never settled for its holder.
	got := claim(t, s, queue.Claim{Owner: "next", Now: late})
	sameIDs(t, "claim after a month", got, Item(1), Item(2))
	for _, it := range got {
		if it.Terminal() {
			t.Errorf("%s settled without an update: %q", it.ID, it.Status)
		}
	}
}
