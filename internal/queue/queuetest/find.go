package queuetest

import (
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
)

// ItemOf returns s's item of the trace of hash h, nil when s holds none;
// it fails t when s cannot be listed. The node's tests ask it of the
// queue a heartbeat left.
func ItemOf(t testing.TB, s queue.Store, h manifest.Hash) *queue.Item {
	t.Helper()
	items, err := s.List()
	if err != nil {
		t.Fatalf("list the queue: %v", err)
	}
	for i := range items {
		if items[i].Hash == h {
			return &items[i]
		}
	}
	return nil
}

// FinishDone has owner, which claimed it from s, finish it done with res
// at at: the result a worker stores for the heartbeat to publish.
func FinishDone(t testing.TB, s queue.Store, it queue.Item, owner string, res *queue.Result, at time.Time) {
	t.Helper()
	r, err := s.Update(queue.Update{Kind: queue.Finish, ID: it.ID, Owner: owner, Version: it.Version,
		Status: queue.StatusDone, At: at, Result: res})
	if err != nil || r[0] != nil {
		t.Fatalf("setup: finish %s as %s: %v, %v", it.ID, owner, r, err)
	}
}
