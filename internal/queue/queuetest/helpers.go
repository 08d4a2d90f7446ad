package queuetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
)

func items(n int) []queue.Item {
	out := make([]queue.Item, n)
	for i := range out {
		out[i] = Item(i + 1)
	}
	return out
}

func enqueue(t *testing.T, s queue.Store, its ...queue.Item) {
	t.Helper()
	if _, err := s.Enqueue(its...); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
}

func claim(t *testing.T, s queue.Store, c queue.Claim) []queue.Item {
	t.Helper()
	got, err := s.Claim(c)
	if err != nil {
		t.Fatalf("claim %+v: %v", c, err)
	}
	return got
}

// update applies us and returns each update's result.
func update(t *testing.T, s queue.Store, us ...queue.Update) []error {
	t.Helper()
	res, err := s.Update(us...)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if len(res) != len(us) {
		t.Fatalf("update returned %d results for %d updates", len(res), len(us))
	}
	return res
}

func finish(it queue.Item, status string, at time.Time) queue.Update {
	return queue.Update{Kind: queue.Finish, ID: it.ID, Owner: it.Owner, Version: it.Version, Status: status, Reason: "test", At: at}
}

func byID(t *testing.T, s queue.Store) map[string]queue.Item {
	t.Helper()
	all, err := s.List()
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	out := map[string]queue.Item{}
	for _, it := range all {
		out[it.ID] = it
	}
	return out
}

func ids(its []queue.Item) []string {
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = it.ID
	}
	return out
}

func sameIDs(t *testing.T, what string, got []queue.Item, want ...queue.Item) {
	t.Helper()
	g, w := fmt.Sprint(ids(got)), fmt.Sprint(ids(want))
	if g != w {
		t.Errorf("%s: got %s, want %s", what, g, w)
	}
}
