package queuetest

import (
	"testing"

	"github.com/meshnode/meshnode/internal/queue"
)

func testInitTwice(t *testing.T, s queue.Store) {
	enqueue(t, s, Item(1))
	if err := s.Init(); err != nil {
		t.Fatalf("second init: %v", err)
	}
	if got := byID(t, s); len(got) != 1 {
		t.Fatalf("init again lost items: %d left", len(got))
	}
}

func testEnqueueIdempotent(t *testing.T, s queue.Store) {
	added, err := s.Enqueue(items(3)...)
	if err != nil || added != 3 {
		t.Fatalf("enqueue 3: added %d, %v", added, err)
	}
	added, err = s.Enqueue(append(items(3), Item(2))...)
	if err != nil || added != 0 {
		t.Fatalf("enqueue again: added %d, %v; want 0, nil", added, err)
	}
	got := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 1})
	if res := update(t, s, finish(got[0], queue.StatusDone, T0)); res[0] != nil {
		t.Fatal(res[0])
	}
	// A settled item's trace queued again stays settled: it is not scored twice.
	if added, err := s.Enqueue(Item(1)); err != nil || added != 0 {
		t.Fatalf("enqueue a done item: added %d, %v", added, err)
	}
	all := byID(t, s)
	if it := all[Item(1).ID]; it.Status != queue.StatusDone {
		t.Errorf("re-enqueued done item has status %q", it.Status)
	}
	for _, it := range all {
		if it.ID != Item(1).ID && (it.Status != queue.StatusQueued || it.Version != 1) {
			t.Errorf("%s: status %q version %d, want queued 1", it.ID, it.Status, it.Version)
		}
	}
}

func testEnqueueClash(t *testing.T, s queue.Store) {
	enqueue(t, s, Item(1))
	clash := Item(2)
	clash.ID = Item(1).ID
	added, err := s.Enqueue(clash, Item(3))
	if err == nil {
		t.Error("an ID that holds another trace was accepted")
	}
	if refused, ok := queue.ItemErrors(err); !ok || len(refused) != 1 || refused[0].Hash != clash.Hash {
		t.Errorf("the clash is reported as %v, want one *queue.ItemError for %s, so the caller goes on", err, clash.Hash)
	}
	if added != 1 {
		t.Errorf("added %d beside the clash, want 1", added)
	}
	all := byID(t, s)
	if all[Item(1).ID].Hash != Item(1).Hash {
		t.Error("the clash replaced the item that held the ID")
	}
	if _, ok := all[Item(3).ID]; !ok {
		t.Error("the item beside the clash was dropped")
	}
}

func testQueuedOldestFirst(t *testing.T, s queue.Store) {
	a, b, c := Item(1), Item(2), Item(3)
	b.QueuedAt = a.QueuedAt // a tie is broken by seq
	enqueue(t, s, c, b, a)
	q, err := s.Queued()
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "queued", q, a, b, c)
	claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 1})
	q, err = s.Queued()
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "queued after claiming one", q, b, c)
}
