// Package queuetest is the conformance suite every queue.Store passes: the
// file store and the PostgreSQL adapter run the same tests
// (docs/queue.md).
package queuetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// NewStore returns an empty, initialized store of its own for one test.
type NewStore func(t *testing.T) queue.Store

// Run runs the conformance suite against the stores newStore returns.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s queue.Store)
	}{
		{"InitTwice", testInitTwice},
		{"EnqueueIdempotent", testEnqueueIdempotent},
		{"EnqueueClash", testEnqueueClash},
		{"QueuedOldestFirst", testQueuedOldestFirst},
		{"ClaimMaxAndFilter", testClaimMaxAndFilter},
		{"ClaimResumes", testClaimResumes},
		{"ClaimsExclusiveUnderConcurrency", testClaimsExclusive},
		{"LeaseExpiresAndIsTakenOver", testLeaseTakeover},
		{"RenewKeepsVersion", testRenew},
		{"CompareAndSwap", testCompareAndSwap},
		{"Statuses", testStatuses},
		{"NothingSettledWithoutUpdate", testNothingSettled},
		{"ResultStoredWithDone", testResult},
		{"ResultPublishedOnce", testPublish},
		{"ListInbox", testList},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// T0 is the suite's clock: near the real time, so a store that drops
// settled items by the real clock (queue.SettledRetention) keeps them.
var T0 = time.Now().UTC().Truncate(time.Second)

// Item returns the n-th test item, queued n seconds after T0.
func Item(n int) queue.Item {
	hex := fmt.Sprintf("%012x%052x", n, n)
	return queue.Item{
		ID: hex[:12], Hash: "sha256:" + hex, From: "ada", FromURL: "https://ada.example/traces/",
		TraceURL: fmt.Sprintf("https://ada.example/traces/t%d.md", n), Type: "finding", Title: fmt.Sprintf("trace %d", n),
		Seq: n, QueuedAt: T0.Add(time.Duration(n) * time.Second),
	}
}

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
