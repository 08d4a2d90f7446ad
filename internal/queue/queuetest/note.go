package queuetest

import (
	"errors"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// testNoteMarksAQueuedItemUntilItIsSuggested: a Note sets a queued item's
// Reason, with a new version and time, and a read gives it back (the
// manual scorer's heartbeat notes an item whose peer withdrew its trace,
// and a later heartbeat reads the mark); a suggestion, or a Note without a
// Reason, clears it; an item in progress is not noted.
func testNoteMarksAQueuedItemUntilItIsSuggested(t *testing.T, s queue.Store) {
	enqueue(t, s, items(3)...)
	held := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 1})[0]
	at := T0.Add(time.Minute)
	note := func(it queue.Item, reason string) queue.Update {
		return queue.Update{Kind: queue.Note, ID: it.ID, Reason: reason, At: at}
	}
	res := update(t, s, note(Item(2), queue.WaitWithdrawn), note(Item(3), queue.WaitWithdrawn), note(held, queue.WaitWithdrawn))
	if res[0] != nil || res[1] != nil || !errors.Is(res[2], queue.ErrConflict) {
		t.Fatalf("notes of two queued items and one in progress: %v", res)
	}
	all := byID(t, s)
	for _, it := range []queue.Item{Item(2), Item(3)} {
		got := all[it.ID]
		if got.Status != queue.StatusQueued || got.Reason != queue.WaitWithdrawn || got.Version != 2 || !got.UpdatedAt.Equal(at) {
			t.Errorf("noted %s: status %q reason %q version %d updated %v; want queued, %q, 2, %v",
				it.ID, got.Status, got.Reason, got.Version, got.UpdatedAt, queue.WaitWithdrawn, at)
		}
	}
	if got := all[held.ID]; got.Reason != "" || got.Version != held.Version {
		t.Errorf("item in progress noted: reason %q version %d, want none and %d", got.Reason, got.Version, held.Version)
	}
	suggest := queue.Update{Kind: queue.Suggest, ID: Item(2).ID, At: at,
		Suggestion: &queue.Suggestion{Scores: validation.Scores{3, 3, 3, 3, 3}}}
	if err := errors.Join(update(t, s, suggest, note(Item(3), ""))...); err != nil {
		t.Fatal(err)
	}
	all = byID(t, s)
	if got := all[Item(2).ID]; got.Reason != "" || got.Suggested == nil {
		t.Errorf("suggested after a note: reason %q, suggested %v; want no reason and the suggestion", got.Reason, got.Suggested)
	}
	if got := all[Item(3).ID]; got.Reason != "" || got.Version != 3 {
		t.Errorf("noted without a reason: reason %q version %d; want none and 3", got.Reason, got.Version)
	}
}

// testClaimPassesOverWithheld: a queued item noted WaitWithdrawn (its
// peer withdrew its trace) is handed out by no claim, filtered or not, nor
// counted by Gives, so no worker scores it; the other queued items are
// claimed as ever, and once a Note clears the reason the item is claimed
// again.
func testClaimPassesOverWithheld(t *testing.T, s queue.Store) {
	enqueue(t, s, items(3)...)
	at := T0.Add(time.Minute)
	if err := errors.Join(update(t, s, queue.Update{Kind: queue.Note, ID: Item(1).ID, Reason: queue.WaitWithdrawn, At: at},
		queue.Update{Kind: queue.Note, ID: Item(2).ID, Reason: queue.WaitFetchFailed, At: at})...); err != nil {
		t.Fatal(err)
	}
	withheld := byID(t, s)[Item(1).ID]
	if c := (queue.Claim{Owner: "w", Now: at}); c.Gives(withheld) {
		t.Error("Gives says a claim would hand out an item noted as waiting for its trace")
	}
	got := claim(t, s, queue.Claim{Owner: "w", Now: at, Filter: func(queue.Item) bool { return true }})
	if len(got) != 2 || got[0].ID != Item(2).ID || got[1].ID != Item(3).ID {
		t.Fatalf("claimed %v; want items 2 and 3, not item 1, which waits for its trace", ids(got))
	}
	if err := errors.Join(update(t, s, queue.Update{Kind: queue.Note, ID: Item(1).ID, At: at})...); err != nil {
		t.Fatal(err)
	}
	if got := claim(t, s, queue.Claim{Owner: "v", Now: at, Max: 1}); len(got) != 1 || got[0].ID != Item(1).ID {
		t.Errorf("its note cleared, claimed %v; want item 1", ids(got))
	}
}
