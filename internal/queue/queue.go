package queue

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/filelock"
	"github.com/meshnode/meshnode/internal/validation"
)

// ErrConflict is returned when an update presents a version or owner that
// is no longer current: the lease was taken over, or a person decided.
var ErrConflict = errors.New("queue item changed since it was claimed")

// ErrNotFound is returned for an ID the queue does not hold.
var ErrNotFound = errors.New("no such queue item")

// Queue is the validation queue stored at one path. It holds no items in
// memory: every call reads and writes the file under a lock.
type Queue struct {
	path string
	// Now stamps items Enqueue adds without a QueuedAt; it defaults to
	// time.Now.
	Now func() time.Time
	mu  sync.Mutex // serializes this process's calls; the flock covers others
}

// Open returns the queue stored at path (mesh-state/queue.json). The file
// is created by the first call that changes it.
func Open(path string) *Queue {
	return &Queue{path: path, Now: time.Now}
}

// update runs fn on the file's content under the lock and writes the result
// when fn succeeds.
func (q *Queue) update(fn func(f *file) error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	unlock, err := filelock.Lock(q.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	f, err := read(q.path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		return err
	}
	if err := f.write(q.path); err != nil {
		return fmt.Errorf("write queue: %w", err)
	}
	return nil
}

// view runs fn on the file's content under the lock, writing nothing.
func (q *Queue) view(fn func(f *file) error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	unlock, err := filelock.Lock(q.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	f, err := read(q.path)
	if err != nil {
		return err
	}
	return fn(f)
}

// Enqueue adds items that are not queued yet and returns how many it added.
// It is idempotent by hash: an item already present, whatever its status
// (a done item included), is left as it is. Each item is queued with
// status queued and version 1.
func (q *Queue) Enqueue(items ...Item) (added int, err error) {
	if len(items) == 0 {
		return 0, nil
	}
	var errs []error
	err = q.update(func(f *file) error {
		byHash := make(map[string]bool, len(f.Items))
		for _, it := range f.Items {
			byHash[it.Hash] = true
		}
		for _, it := range items {
			if byHash[it.Hash] {
				continue
			}
			if old := f.Items[it.ID]; old != nil || it.ID == "" {
				errs = append(errs, fmt.Errorf("queue %s: id %q is empty or already holds another trace", it.Hash, it.ID))
				continue
			}
			f.Items[it.ID] = fresh(it, q.Now())
			byHash[it.Hash] = true
			added++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// A clash of IDs is reported, but the other items are kept.
	return added, errors.Join(errs...)
}

func fresh(it Item, now time.Time) *Item {
	if it.QueuedAt.IsZero() {
		it.QueuedAt = now
	}
	it.UpdatedAt = it.QueuedAt
	it.Status, it.Reason = StatusQueued, ""
	it.Owner, it.LeaseExpires, it.Version = "", time.Time{}, 1
	return &it
}

// Claim gives owner the oldest item that is queued, or in progress under an
// expired lease (a takeover), and that filter accepts (nil accepts all). It
// returns nil when there is none. The claim lasts lease (DefaultLease when
// lease ≤ 0); the returned item's Version must be presented to Renew and
// Finish.
func (q *Queue) Claim(owner string, now time.Time, lease time.Duration, filter func(Item) bool) (*Item, error) {
	if lease <= 0 {
		lease = DefaultLease
	}
	var got *Item
	err := q.update(func(f *file) error {
		for _, it := range f.sorted() {
			if !it.claimable(now) || (filter != nil && !filter(*it)) {
				continue
			}
			reason := ""
			if it.Status == StatusInProgress {
				reason = fmt.Sprintf("lease of %s expired; taken over", it.Owner)
			}
			it.Status, it.Reason, it.Owner = StatusInProgress, reason, owner
			it.LeaseExpires, it.UpdatedAt = now.Add(lease), now
			it.Version++
			c := *it
			got = &c
			return nil
		}
		return nil
	})
	return got, err
}

// Resume gives owner back the oldest item it already holds in progress,
// expired lease or not, without a new version: a worker that crashed
// between claiming and finishing picks up where it stopped, and its rerun
// ends as an uninterrupted run would. It returns nil when owner holds
// nothing; call it before Claim, once per item, since the item stays in
// progress until it is finished.
func (q *Queue) Resume(owner string, now time.Time, lease time.Duration) (*Item, error) {
	if lease <= 0 {
		lease = DefaultLease
	}
	var got *Item
	err := q.update(func(f *file) error {
		for _, it := range f.sorted() {
			if it.Status != StatusInProgress || it.Owner != owner {
				continue
			}
			it.LeaseExpires = now.Add(lease)
			c := *it
			got = &c
			return nil
		}
		return nil
	})
	return got, err
}

// Renew extends owner's claim on item id to now+lease, checking version;
// it returns the item with its new version, or ErrConflict when the claim
// is no longer owner's.
func (q *Queue) Renew(id, owner string, version int, now time.Time, lease time.Duration) (*Item, error) {
	if lease <= 0 {
		lease = DefaultLease
	}
	var got *Item
	err := q.update(func(f *file) error {
		it, err := f.claimed(id, owner, version)
		if err != nil {
			return err
		}
		it.LeaseExpires, it.UpdatedAt = now.Add(lease), now
		it.Version++
		c := *it
		got = &c
		return nil
	})
	return got, err
}

// Finish ends owner's claim on item id with a terminal status (done,
// failed or skipped) and its reason, checking version.
func (q *Queue) Finish(id, owner string, version int, status, reason string, now time.Time) error {
	if !terminal(status) {
		return fmt.Errorf("finish %s: status %q is not done, failed or skipped", id, status)
	}
	return q.update(func(f *file) error {
		it, err := f.claimed(id, owner, version)
		if err != nil {
			return err
		}
		it.settle(status, reason, now)
		return nil
	})
}

// Set records a person's explicit decision on item id: done, failed or
// skipped, whatever its status and claim. A worker still holding the item
// then gets ErrConflict.
func (q *Queue) Set(id, status, reason string, now time.Time) error {
	if !terminal(status) {
		return fmt.Errorf("set %s: status %q is not done, failed or skipped", id, status)
	}
	return q.update(func(f *file) error {
		it := f.Items[id]
		if it == nil {
			return fmt.Errorf("set %s: %w", id, ErrNotFound)
		}
		it.settle(status, reason, now)
		return nil
	})
}

// Suggest stores a scorer's proposal on item id for the person who will
// score it.
func (q *Queue) Suggest(id string, scores validation.Scores, reasons map[string][]string, notes string, now time.Time) error {
	return q.update(func(f *file) error {
		it := f.Items[id]
		if it == nil {
			return fmt.Errorf("suggest %s: %w", id, ErrNotFound)
		}
		s := scores
		it.Suggested, it.SuggestedReasons, it.SuggestedNotes = &s, reasons, notes
		it.UpdatedAt = now
		it.Version++
		return nil
	})
}

// List returns every item, oldest first.
func (q *Queue) List() ([]Item, error) {
	var out []Item
	err := q.view(func(f *file) error {
		for _, it := range f.sorted() {
			out = append(out, *it)
		}
		return nil
	})
	return out, err
}

func (f *file) claimed(id, owner string, version int) (*Item, error) {
	it := f.Items[id]
	if it == nil {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	if it.Status != StatusInProgress || it.Owner != owner || it.Version != version {
		return nil, fmt.Errorf("%s (now %s by %q, version %d; had version %d): %w", id, it.Status, it.Owner, it.Version, version, ErrConflict)
	}
	return it, nil
}

func (it *Item) settle(status, reason string, now time.Time) {
	it.Status, it.Reason = status, reason
	it.Owner, it.LeaseExpires = "", time.Time{}
	it.UpdatedAt = now
	it.Version++
}

func terminal(status string) bool {
	it := Item{Status: status}
	return it.Terminal()
}
