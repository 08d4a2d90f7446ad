package queuetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
)

func testClaimMaxAndFilter(t *testing.T, s queue.Store) {
	enqueue(t, s, items(5)...)
	odd := func(it queue.Item) bool { return it.Seq%2 == 1 }
	got := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 2, Filter: odd})
	sameIDs(t, "filtered claim", got, Item(1), Item(3))
	got = claim(t, s, queue.Claim{Owner: "v", Now: T0})
	sameIDs(t, "claim without limit", got, Item(2), Item(4), Item(5))
	for _, it := range got {
		if it.Status != queue.StatusInProgress || it.Owner != "v" || it.Version != 2 || !it.LeaseExpires.Equal(T0.Add(queue.DefaultLease)) {
			t.Errorf("claimed %s: status %q owner %q version %d lease %v", it.ID, it.Status, it.Owner, it.Version, it.LeaseExpires)
		}
	}
	if got := claim(t, s, queue.Claim{Owner: "x", Now: T0}); len(got) != 0 {
		t.Errorf("empty queue gave %v", ids(got))
	}
}

func testClaimResumes(t *testing.T, s queue.Store) {
	enqueue(t, s, items(3)...)
	first := claim(t, s, queue.Claim{Owner: "w", Now: T0, Max: 1, Lease: time.Minute})
	// Past the lease, nobody took it over: the owner resumes it as it was.
	later := T0.Add(5 * time.Minute)
	again := claim(t, s, queue.Claim{Owner: "w", Now: later, Max: 2, Lease: time.Minute})
	sameIDs(t, "resumed claim", again, Item(1), Item(2))
	if again[0].Version != first[0].Version {
		t.Errorf("resumed item's version %d, want %d", again[0].Version, first[0].Version)
	}
	if !again[0].LeaseExpires.Equal(later.Add(time.Minute)) {
		t.Errorf("resumed lease %v, want %v", again[0].LeaseExpires, later.Add(time.Minute))
	}
	if res := update(t, s, finish(first[0], queue.StatusDone, later)); res[0] != nil {
		t.Errorf("finish with the first claim's version: %v", res[0])
	}
}

func testClaimsExclusive(t *testing.T, s queue.Store) {
	const n, workers = 60, 6
	enqueue(t, s, items(n)...)
	var mu sync.Mutex
	got := map[string]string{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		owner := fmt.Sprintf("w%d", w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				its, err := s.Claim(queue.Claim{Owner: owner, Now: T0, Max: 2, Lease: time.Hour})
				if err != nil {
					errs <- err
					return
				}
				if len(its) == 0 {
					return
				}
				var us []queue.Update
				mu.Lock()
				for _, it := range its {
					if prev, dup := got[it.ID]; dup {
						errs <- fmt.Errorf("%s claimed by %s and %s", it.ID, prev, owner)
					}
					got[it.ID] = owner
					us = append(us, finish(it, queue.StatusDone, T0))
				}
				mu.Unlock()
				res, err := s.Update(us...)
				if err == nil {
					err = errors.Join(res...)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(got) != n {
		t.Errorf("%d items claimed, want %d", len(got), n)
	}
	for id, it := range byID(t, s) {
		if it.Status != queue.StatusDone || it.Version != 3 {
			t.Errorf("%s: status %q version %d, want done 3", id, it.Status, it.Version)
		}
	}
}

func testLeaseTakeover(t *testing.T, s queue.Store) {
	enqueue(t, s, Item(1))
	a := claim(t, s, queue.Claim{Owner: "a", Now: T0, Lease: time.Minute})
	if len(a) != 1 {
		t.Fatalf("a claimed %d items", len(a))
	}
	if got := claim(t, s, queue.Claim{Owner: "b", Now: T0.Add(59 * time.Second)}); len(got) != 0 {
		t.Fatalf("b took a live lease: %v", ids(got))
	}
	b := claim(t, s, queue.Claim{Owner: "b", Now: T0.Add(time.Minute), Lease: time.Minute})
	if len(b) != 1 {
		t.Fatal("b could not take over an expired lease")
	}
	if b[0].Owner != "b" || b[0].Version != a[0].Version+1 || b[0].Reason != "lease of a expired; taken over" {
		t.Errorf("taken over: owner %q version %d reason %q", b[0].Owner, b[0].Version, b[0].Reason)
	}
	res := update(t, s, finish(a[0], queue.StatusDone, T0.Add(61*time.Second)), finish(b[0], queue.StatusDone, T0.Add(62*time.Second)))
	if !errors.Is(res[0], queue.ErrConflict) {
		t.Errorf("the first holder finished after the takeover: %v", res[0])
	}
	if res[1] != nil {
		t.Errorf("the new holder could not finish: %v", res[1])
	}
}

func testRenew(t *testing.T, s queue.Store) {
	enqueue(t, s, Item(1))
	a := claim(t, s, queue.Claim{Owner: "a", Now: T0, Lease: time.Minute})[0]
	renew := queue.Update{Kind: queue.Renew, ID: a.ID, Owner: "a", Version: a.Version, At: T0.Add(50 * time.Second), Lease: time.Minute}
	if res := update(t, s, renew); res[0] != nil {
		t.Fatal(res[0])
	}
	if got := claim(t, s, queue.Claim{Owner: "b", Now: T0.Add(90 * time.Second)}); len(got) != 0 {
		t.Fatal("b took a renewed lease")
	}
	it := byID(t, s)[a.ID]
	if it.Version != a.Version || !it.LeaseExpires.Equal(T0.Add(110*time.Second)) {
		t.Errorf("renewed: version %d lease %v", it.Version, it.LeaseExpires)
	}
	if res := update(t, s, finish(a, queue.StatusFailed, T0.Add(100*time.Second))); res[0] != nil {
		t.Errorf("finish after renew: %v", res[0])
	}
}
