package heartbeat

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
)

func queueItem(n int) queue.Item {
	h := manifest.Hash(fmt.Sprintf("sha256:%012x%052x", n, n))
	return queue.Item{ID: h.Hex(12), Hash: h, From: "ada", FromURL: "https://ada.example/", Seq: manifest.Seq(n),
		TraceURL: fmt.Sprintf("https://ada.example/traces/%d.md", n), QueuedAt: testNow.Add(time.Duration(n) * time.Second)}
}

// TestPersonsDecisionDuringScoringStands settles an item with `meshnode
// inbox` (another process, its own handle on the file) while the heartbeat
// holds it claimed: the heartbeat's batched finish must not overwrite the
// person's decision, and its other finishes must all land.
func TestPersonsDecisionDuringScoringStands(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "queue.json")
	store := queue.Open(p)
	store.Now = func() time.Time { return testNow }
	if _, err := store.Enqueue(queueItem(1), queueItem(2), queueItem(3)); err != nil {
		t.Fatal(err)
	}
	warned := 0
	c := newClaims(store, claimOwner, time.Minute, testNow, func(string, ...any) { warned++ })
	items, err := c.claim(nil)
	if err != nil || len(items) != 3 {
		t.Fatalf("claimed %d items, %v; want 3", len(items), err)
	}
	person := queue.Open(p)
	person.Now = store.Now
	if err := queue.Set(person, items[1].ID, queue.StatusSkipped, "marked skip by hand", testNow); err != nil {
		t.Fatal(err)
	}
	for i := range items {
		if err := c.finish(&items[i], queue.StatusDone, "pass 20/30"); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	got, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	if warned != 1 {
		t.Errorf("%d warnings; want one, for the item the person settled", warned)
	}
	want := []string{queue.StatusDone, queue.StatusSkipped, queue.StatusDone}
	for i, it := range got {
		if it.Status != want[i] {
			t.Errorf("item %d is %s (%s), want %s", i+1, it.Status, it.Reason, want[i])
		}
	}
}

// TestUnstartedClaimsGoBackToTheQueue closes a batch before scoring its
// items (the deadline passed): they are queued again, free for anyone.
func TestUnstartedClaimsGoBackToTheQueue(t *testing.T) {
	store := queue.Open(filepath.Join(t.TempDir(), "queue.json"))
	store.Now = func() time.Time { return testNow }
	store.Enqueue(queueItem(1), queueItem(2))
	c := newClaims(store, claimOwner, 0, testNow, func(string, ...any) {})
	items, err := c.claim(nil)
	if err != nil || len(items) != 2 {
		t.Fatalf("claimed %d, %v", len(items), err)
	}
	if err := c.finish(&items[0], queue.StatusFailed, "scorer: boom"); err != nil {
		t.Fatal(err)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	got, _ := store.List()
	if got[0].Status != queue.StatusFailed || got[1].Status != queue.StatusQueued || got[1].Owner != "" {
		t.Fatalf("items %+v; want the first failed, the second queued and unowned", got)
	}
}

// TestClaimsHoldTheClaimedItemsNotCopies: the claims kept a copy of each
// item claimed until it was finished, as large as the items claim
// returns (12 MB of 20,000 in a catch-up), through the queue's writes.
// They point at the claimed items now, which scoring does not change.
func TestClaimsHoldTheClaimedItemsNotCopies(t *testing.T) {
	store := queue.Open(filepath.Join(t.TempDir(), "queue.json"))
	store.Now = func() time.Time { return testNow }
	store.Enqueue(queueItem(1), queueItem(2))
	c := newClaims(store, claimOwner, 0, testNow, func(string, ...any) {})
	items, err := c.claim(nil)
	if err != nil || len(items) != 2 {
		t.Fatalf("claimed %d, %v", len(items), err)
	}
	for i := range items {
		if c.open[items[i].ID] != &items[i] {
			t.Errorf("claim of %s holds a copy of the item, not the item claimed", items[i].ID)
		}
	}
}
