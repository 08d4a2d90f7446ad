package queuetest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// newURL is where testRename moves ada's items.
const newURL = "https://ada.example/moved/"

// testRename: Rename moves every item listed at one peer URL to another,
// at work and settled, each as it was but for its FromURL and its
// TraceURL under it (queue.Item.MoveTo): a worker holding one finishes it
// with the version it was given, a result waiting is published once, and
// the settled ones keep their traces out of the queue when the agent
// lists them again at its new URL, under another ID too. Another peer's
// items stay; a second Rename, or one of a URL that lists nothing, moves
// nothing; an empty URL is refused.
func testRename(t *testing.T, s queue.Store) {
	bob := Item(6)
	bob.From, bob.FromURL, bob.TraceURL = "bob", "https://bob.example/", "https://bob.example/t6.md"
	otherID := Item(7)
	otherID.ID = "listed-by-ada"
	enqueue(t, s, append(items(5), bob, otherID)...)
	its := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 4})
	waiting := finish(its[0], queue.StatusDone, T0)
	waiting.Result = &queue.Result{Scores: validation.Scores{5, 1, 5, 1, 5, 1}, Notes: "the worker's", Scorer: "command", ScoredAt: T0}
	res := update(t, s, waiting, finish(its[1], queue.StatusFailed, T0), finish(its[3], queue.StatusDone, T0),
		queue.Update{Kind: queue.Decide, ID: otherID.ID, Status: queue.StatusSkipped, Reason: "a person said so", At: T0})
	if err := errors.Join(res...); err != nil {
		t.Fatal(err)
	}
	before, act := byID(t, s), active(t, s)

	moved, err := s.Rename(Item(1).FromURL, newURL)
	if err != nil || moved != 6 {
		t.Fatalf("rename: moved %d, %v; want ada's 6 items", moved, err)
	}
	after := byID(t, s)
	for id, was := range before {
		want := was
		want.MoveTo(Item(1).FromURL, newURL)
		if got := after[id]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s after the rename:\n%+v\nwant\n%+v", id, got, want)
		}
	}
	if got := after[Item(2).ID].TraceURL; got != newURL+"t2.md" {
		t.Errorf("a moved item's trace URL is %s, want it under the new URL", got)
	}
	now := active(t, s)
	sameIDs(t, "active after the rename", now.Items, act.Items...)
	sameCounts(t, "settled after the rename", now.Settled, act.Settled[queue.StatusDone], act.Settled[queue.StatusFailed], act.Settled[queue.StatusSkipped])

	res = update(t, s, finish(its[2], queue.StatusDone, T0), queue.Update{Kind: queue.Publish, ID: Item(1).ID, At: T0})
	if err := errors.Join(res...); err != nil {
		t.Errorf("the holder's finish and the result's publish after the rename: %v", err)
	}
	again := items(5)
	again = append(again, otherID)
	again[5].ID = "listed-again"
	for i := range again {
		again[i].MoveTo(Item(1).FromURL, newURL)
	}
	if added, err := s.Enqueue(again...); added != 0 || err != nil {
		t.Errorf("ada's traces listed again at her new URL: %d queued, %v; want none", added, err)
	}
	renameNothing(t, s)
}

// renameNothing: a rename that finds nothing to move, or moves a URL to
// itself, moves nothing; one with an empty URL is refused.
func renameNothing(t *testing.T, s queue.Store) {
	for _, m := range [][2]string{{Item(1).FromURL, newURL}, {"https://nobody.example/", newURL}, {newURL, newURL}} {
		if moved, err := s.Rename(m[0], m[1]); moved != 0 || err != nil {
			t.Errorf("rename %s to %s: moved %d, %v; want nothing", m[0], m[1], moved, err)
		}
	}
	for _, m := range [][2]string{{"", newURL}, {newURL, ""}} {
		if _, err := s.Rename(m[0], m[1]); err == nil {
			t.Errorf("rename %q to %q: no error", m[0], m[1])
		}
	}
}
