package heartbeat

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
)

// claims is the heartbeat's side of the queue while it scores: the items it
// claimed in one call, and the finishes it has not written yet. They are
// written together when scoring ends (close), so the queue's cost per item
// stays constant. The claim's lease covers the whole run (see newClaims),
// so nothing needs renewing meanwhile. A crash loses the unwritten
// finishes only: the next heartbeat resumes those items, finds their
// validation files and ends them as this run would have.
type claims struct {
	store queue.Store
	owner string
	lease time.Duration
	now   time.Time // the heartbeat's clock
	warn  func(msg string, args ...any)

	mu      sync.Mutex
	open    map[string]*queue.Item // claimed, not finished yet: claim's items themselves
	pending []queue.Update
	ended   map[string]string // item ID → the status written for it
	drops   []queue.Item      // claimed items to drop (drop)
	dropped map[string]bool   // IDs of the items close dropped
	gone    []queue.Item      // the items close dropped
}

// newClaims prepares a run's claims, lasting lease: the heartbeat passes
// its deadline plus the configured lease, since it starts no item after
// its deadline and finishes the ones it started.
func newClaims(store queue.Store, owner string, lease time.Duration, now time.Time, warn func(string, ...any)) *claims {
	if lease <= 0 {
		lease = queue.DefaultLease
	}
	return &claims{store: store, owner: owner, lease: lease, now: now, warn: warn,
		open: map[string]*queue.Item{}, ended: map[string]string{}, dropped: map[string]bool{}}
}

// wanted reports whether a claim would give anything, by the queue as
// listed: when not, the heartbeat does not read it again to claim.
func (c *claims) wanted(listed []queue.Item) bool {
	claim := queue.Claim{Owner: c.owner, Now: c.now, Lease: c.lease}
	for _, it := range listed {
		if claim.Gives(it) {
			return true
		}
	}
	return false
}

// claim takes every item the owner holds or may claim that filter
// accepts (the ones it holds are taken whatever filter says), in one
// write. The claims point at the items it returns, which the caller must
// not change: a copy of each claimed item, open until finished, was as
// large as the claimed items themselves (12 MB of 20,000).
func (c *claims) claim(filter func(queue.Item) bool) ([]queue.Item, error) {
	items, err := c.store.Claim(queue.Claim{Owner: c.owner, Now: c.now, Lease: c.lease, Filter: filter})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range items {
		c.open[items[i].ID] = &items[i]
	}
	return items, nil
}

// finish records the end of one item, to be written by close.
func (c *claims) finish(it *queue.Item, status, reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.open, it.ID)
	c.pending = append(c.pending, queue.Update{Kind: queue.Finish, ID: it.ID, Owner: c.owner, Version: it.Version,
		Status: status, Reason: reason, At: c.now})
	return nil
}

// hold records that the claimed item it goes back to the queue, unscored
// and noted as waiting for its peer to list its trace again
// (queue.WaitWithdrawn), to be written by close: a Release, then the Note.
func (c *claims) hold(it *queue.Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.open, it.ID)
	c.pending = append(c.pending,
		queue.Update{Kind: queue.Release, ID: it.ID, Owner: c.owner, Version: it.Version, At: c.now},
		noteWait(*it, queue.WaitWithdrawn, c.now))
}

// drop records that the claimed item it leaves the queue, unscored, to
// be written by close.
func (c *claims) drop(it *queue.Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.open, it.ID)
	c.drops = append(c.drops, *it)
}

// close writes the pending finishes, gives back what was claimed but
// not scored (the deadline passed), so it waits, queued, for the next
// run, and drops what drop was told.
func (c *claims) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range sortedItems(c.open) {
		c.pending = append(c.pending, queue.Update{Kind: queue.Release, ID: it.ID, Owner: c.owner, Version: it.Version, At: c.now})
	}
	c.open = map[string]*queue.Item{}
	if err := c.flushLocked(); err != nil {
		return err
	}
	return c.dropLocked()
}

// dropLocked drops the items drop was told, in one call.
func (c *claims) dropLocked() error {
	ids := make([]string, len(c.drops))
	for i, it := range c.drops {
		ids[i] = it.ID
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := c.store.Drop(ids...); err != nil {
		return fmt.Errorf("drop queue items: %w", err)
	}
	for _, id := range ids {
		c.dropped[id] = true
	}
	c.gone, c.drops = append(c.gone, c.drops...), nil
	return nil
}

// droppedItems returns the items close dropped.
func (c *claims) droppedItems() []queue.Item {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.gone)
}

// flushLocked writes the pending updates in one call. An update refused
// because the item changed meanwhile (a person decided, another worker
// took over) is logged, not fatal.
func (c *claims) flushLocked() error {
	updates := c.pending
	c.pending = nil
	if len(updates) == 0 {
		return nil
	}
	results, err := c.store.Update(updates...)
	if err != nil {
		return fmt.Errorf("write queue: %w", err)
	}
	for i, err := range results {
		switch {
		case err == nil:
			c.ended[updates[i].ID] = endStatus(updates[i])
		case errors.Is(err, queue.ErrConflict), errors.Is(err, queue.ErrNotFound):
			c.warn("queue item changed by someone else; their change stands", "id", updates[i].ID, "err", err.Error())
			delete(c.open, updates[i].ID)
		default:
			return fmt.Errorf("update queue: %w", err)
		}
	}
	return nil
}

func sortedItems(m map[string]*queue.Item) []*queue.Item {
	out := make([]*queue.Item, 0, len(m))
	for _, it := range m {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// endStatus is the status update u leaves its item in: a Note applies
// only to a queued item (hold's, after its Release).
func endStatus(u queue.Update) string {
	if u.Kind == queue.Release || u.Kind == queue.Note {
		return queue.StatusQueued
	}
	return u.Status
}
