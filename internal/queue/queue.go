package queue

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/filelock"
	"github.com/meshnode/meshnode/internal/statefile"
)

// File is the queue stored in files: named by mesh-state/queue.json, kept
// in mesh-state/queue/, one file per peer (statefile.Dir), with each
// peer's settled items in mesh-state/queue-settled/, read only by the
// calls that need them (settled.go). Every call reads and writes the
// files under one lock, once for its whole batch; settled items older
// than SettledRetention are dropped at each write.
// Between calls it keeps the files' bytes as it last read or wrote them
// (statefile.Cache), so a call opens only the files another process
// changed since: a heartbeat that lists, claims and finishes opens each
// file once.
type File struct {
	path string
	// Now stamps items Enqueue adds without a QueuedAt, and dates the
	// retention of settled items; it defaults to time.Now.
	Now   func() time.Time
	mu    sync.Mutex // serializes this process's calls; the flock covers others
	cache statefile.Cache
	memo  memo // the files of mesh-state/queue/ as decoded last (read), guarded by mu
}

var _ Store = (*File)(nil)

// Open returns the queue stored at path. The file is created by Init or by
// the first call that changes it.
func Open(path string) *File {
	return &File{path: path, Now: time.Now}
}

// update runs fn on the file's content under the lock and writes the result
// when fn succeeds.
func (q *File) update(fn func(f *file) error) error {
	return q.locked(func(f *file) error {
		if err := fn(f); err != nil {
			return err
		}
		if err := f.write(q.Now()); err != nil {
			return fmt.Errorf("write queue: %w", err)
		}
		return nil
	})
}

// locked runs fn on the file's content under the lock, writing nothing.
func (q *File) locked(fn func(f *file) error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	unlock, err := filelock.Lock(q.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if q.memo == nil {
		q.memo = memo{}
	}
	f, err := read(q.path, &q.cache, q.memo)
	if err != nil {
		return err
	}
	return fn(f)
}

// Init creates the queue's directory when there is none, migrates what
// an older node wrote (its single file, and the settled items it kept in
// a peer's file, which move to the peer's settled file), and finishes a
// move back to work that a crash stopped (settled.go).
func (q *File) Init() error {
	if err := os.MkdirAll(statefile.Dir(q.path), 0o755); err != nil {
		return fmt.Errorf("init queue: %w", err)
	}
	return q.locked(func(f *file) error {
		if !f.unfinished() {
			return nil
		}
		if err := f.write(q.Now()); err != nil {
			return fmt.Errorf("init queue: %w", err)
		}
		return nil
	})
}

// Enqueue adds items that are not queued yet and returns how many it added.
// It is idempotent by hash: an item already present, whatever its status
// (a done item included), is left as it is. Each item is queued with
// status queued and version 1.
func (q *File) Enqueue(items ...Item) (added int, err error) {
	if len(items) == 0 {
		return 0, nil
	}
	var clashes []error
	err = q.update(func(f *file) error {
		if err := f.loadHolding(items); err != nil {
			return err
		}
		added, clashes = f.enqueue(items, q.Now())
		return nil
	})
	if err != nil {
		return 0, err
	}
	// A clash of IDs is reported, but the other items are kept.
	return added, errors.Join(clashes...)
}

// Queued returns the items with status queued, oldest first.
func (q *File) Queued() ([]Item, error) {
	var out []Item
	err := q.locked(func(f *file) error {
		for _, it := range f.sorted() {
			if it.Status == StatusQueued {
				out = append(out, *it)
			}
		}
		return nil
	})
	return out, err
}

// Claim gives c.Owner the items it holds in progress, then the oldest
// claimable ones, up to c.Max, all in one write.
func (q *File) Claim(c Claim) ([]Item, error) {
	var got []Item
	err := q.update(func(f *file) error {
		got = f.claim(c)
		return nil
	})
	return got, err
}

// Update applies updates in order, in one write.
func (q *File) Update(updates ...Update) ([]error, error) {
	results := make([]error, len(updates))
	err := q.update(func(f *file) error {
		for _, u := range updates {
			if f.Items[u.ID] == nil {
				// Not at work: a settled item, or none.
				if err := f.loadAllSettled(); err != nil {
					return err
				}
				break
			}
		}
		for i, u := range updates {
			results[i] = u.Apply(f.Items)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// List returns every item, oldest first, the settled ones included.
func (q *File) List() ([]Item, error) {
	var out []Item
	err := q.locked(func(f *file) error {
		if err := f.loadAllSettled(); err != nil {
			return err
		}
		for _, it := range f.sorted() {
			out = append(out, *it)
		}
		return nil
	})
	return out, err
}

// Active returns the items not settled, oldest first, with the settled
// ones counted from their index: it reads no settled file.
func (q *File) Active() (Active, error) {
	var a Active
	err := q.locked(func(f *file) error {
		for _, it := range f.sorted() {
			if !it.Settled() {
				a.Items = append(a.Items, *it)
			}
		}
		a.Settled, a.Expired = f.settledCounts(q.Now())
		return nil
	})
	return a, err
}

// Drop removes the items at work with these IDs, in one write, or none
// when it removes nothing.
func (q *File) Drop(ids ...string) (dropped int, err error) {
	if len(ids) == 0 {
		return 0, nil
	}
	err = q.locked(func(f *file) error {
		for _, id := range ids {
			if it := f.Items[id]; it != nil && !it.Settled() {
				delete(f.Items, id)
				dropped++
			}
		}
		if dropped == 0 {
			return nil
		}
		if err := f.write(q.Now()); err != nil {
			return fmt.Errorf("write queue: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return dropped, nil
}
