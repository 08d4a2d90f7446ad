package queue

import (
	"fmt"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// enqueue adds the items whose hash f does not hold yet and reports how
// many it added and the IDs that clash with another trace's. An item
// settled longer ago than the retention holds nothing: this write drops
// it (prune), and PostgreSQL drops it before it looks, so both stores
// answer alike whenever they last wrote.
func (f *file) enqueue(items []Item, now time.Time) (int, []error) {
	f.prune(now)
	byHash := make(map[manifest.Hash]bool, len(f.Items))
	for _, it := range f.Items {
		byHash[it.Hash] = true
	}
	added := 0
	var clashes []error
	for _, it := range items {
		if byHash[it.Hash] {
			continue
		}
		if old := f.Items[it.ID]; old != nil || it.ID == "" {
			clashes = append(clashes, &ItemError{ID: it.ID, Hash: it.Hash, Err: ErrIDTaken})
			continue
		}
		f.Items[it.ID] = Fresh(it, now)
		byHash[it.Hash] = true
		added++
	}
	return added, clashes
}

// Fresh returns it as Enqueue stores it: queued at now unless it says
// when, version 1, no claim. Every store enqueues by this rule.
func Fresh(it Item, now time.Time) *Item {
	if it.QueuedAt.IsZero() {
		it.QueuedAt = now
	}
	it.UpdatedAt = it.QueuedAt
	it.Status, it.Reason = StatusQueued, ""
	it.Owner, it.LeaseExpires, it.Version = "", time.Time{}, 1
	it.Result = nil
	return &it
}

// claim applies c to f: the owner's items in progress first, then the
// oldest claimable ones.
func (f *file) claim(c Claim) []Item {
	full := func(got []Item) bool { return c.Max > 0 && len(got) >= c.Max }
	sorted := f.sorted()
	var got []Item
	for _, it := range sorted {
		if full(got) {
			return got
		}
		if it.Status == StatusInProgress && it.Owner == c.Owner {
			c.Resume(it)
			got = append(got, *it)
		}
	}
	for _, it := range sorted {
		if full(got) {
			return got
		}
		if (it.Status == StatusInProgress && it.Owner == c.Owner) || !c.Gives(*it) {
			continue
		}
		c.Take(it)
		got = append(got, *it)
	}
	return got
}

// Gives reports whether c would give it to c.Owner: an item the owner
// holds in progress, resumed, or one it may take. A caller that listed the
// queue tells by it whether a claim would find anything.
func (c Claim) Gives(it Item) bool {
	if it.Status == StatusInProgress && it.Owner == c.Owner {
		return true
	}
	return it.claimable(c.Now) && (c.Filter == nil || c.Filter(it))
}

// Resume renews the lease of an item c.Owner already holds in progress;
// its version stays. Every store resumes by this rule.
func (c Claim) Resume(it *Item) {
	it.LeaseExpires = c.Now.Add(leaseOr(c.Lease))
}

// Take gives a claimable item to c.Owner with a new version, noting a
// takeover of an expired lease in its reason. Every store claims by this
// rule.
func (c Claim) Take(it *Item) {
	reason := ""
	if it.Status == StatusInProgress {
		reason = fmt.Sprintf("lease of %s expired; taken over", it.Owner)
	}
	it.Status, it.Reason, it.Owner = StatusInProgress, reason, c.Owner
	it.LeaseExpires, it.UpdatedAt = c.Now.Add(leaseOr(c.Lease)), c.Now
	it.Version++
}
