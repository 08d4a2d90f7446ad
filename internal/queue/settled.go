package queue

import (
	"fmt"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// A peer's settled items are kept apart from its items still at work, in
// a file of their own under mesh-state/queue-settled/, named as its file
// of mesh-state/queue/: a heartbeat reads every peer's file of the queue
// to know what waits, but a peer's settled items (a week of them, 39 MB
// at 10,000 agents) only when it settles or drops items of that peer, or
// when an item it enqueues may be one of them; a heartbeat that finds
// nothing new reads none (docs/decisions.md, "A quiet heartbeat"). The
// peer's file of mesh-state/queue/ keeps their index: their IDs by
// status, and when the oldest was settled, so the queue counts them,
// finds the file an ID is in, and knows when some are due to leave
// (SettledRetention) without opening it.
//
// A write puts a settled item in its settled file before it takes it out
// of its peer's file, so a crash between the two loses nothing: an item
// found in both is the one of mesh-state/queue/.

// SettledPath names the split state of the settled items beside the
// queue's split state named by path: mesh-state/queue-settled/ beside
// mesh-state/queue/.
func SettledPath(path string) string { return statefile.Dir(path) + "-settled.json" }

// Settled reports whether the item is done with, for good: terminal, and
// not done with a Result the node has still to publish. A settled item is
// kept SettledRetention for the inbox and to keep its trace from being
// queued again, and read only when needed.
func (it *Item) Settled() bool {
	return it.Terminal() && !(it.Status == StatusDone && it.Result != nil && it.Result.PublishedAt.IsZero())
}

// index lists the settled items of one peer's settled file.
type index struct {
	Done    []string  `json:"done,omitempty"`
	Failed  []string  `json:"failed,omitempty"`
	Skipped []string  `json:"skipped,omitempty"`
	Oldest  time.Time `json:"oldest"` // the earliest UpdatedAt among them
}

// indexOf returns the index of items, all settled; nil when there are none.
func indexOf(items map[string]*Item) *index {
	if len(items) == 0 {
		return nil
	}
	ix := &index{}
	for id, it := range items {
		switch it.Status {
		case StatusDone:
			ix.Done = append(ix.Done, id)
		case StatusFailed:
			ix.Failed = append(ix.Failed, id)
		default:
			ix.Skipped = append(ix.Skipped, id)
		}
		if ix.Oldest.IsZero() || it.UpdatedAt.Before(ix.Oldest) {
			ix.Oldest = it.UpdatedAt
		}
	}
	for _, ids := range [][]string{ix.Done, ix.Failed, ix.Skipped} {
		slices.Sort(ids)
	}
	return ix
}

// expired reports whether some of the indexed items were settled more
// than SettledRetention before now.
func (ix *index) expired(now time.Time) bool {
	return ix.Oldest.Before(now.Add(-SettledRetention))
}

// count adds the indexed items to counts, by status.
func (ix *index) count(counts map[string]int) {
	counts[StatusDone] += len(ix.Done)
	counts[StatusFailed] += len(ix.Failed)
	counts[StatusSkipped] += len(ix.Skipped)
}

// loadSettled reads the settled file name into f, unless it was read
// already; an item f holds already stays as it is.
func (f *file) loadSettled(name string) error {
	if f.isLoaded(name) {
		return nil
	}
	sp := SettledPath(f.path)
	data, err := f.cache.ReadOne(sp, name)
	if err != nil {
		return err
	}
	if data != nil {
		in, err := decode(data)
		if err != nil {
			return statefile.Corrupt(statefile.FilePath(sp, name), data, err)
		}
		for id, it := range in.Items {
			if f.Items[id] == nil {
				f.Items[id] = it
			}
		}
	}
	f.loaded[name] = data
	delete(f.index, name)
	return nil
}

func (f *file) isLoaded(name string) bool {
	_, ok := f.loaded[name]
	return ok
}

// loadAllSettled reads every settled file not read yet.
func (f *file) loadAllSettled() error {
	names, err := statefile.Names(SettledPath(f.path))
	if err != nil {
		return err
	}
	for name := range f.index {
		names = append(names, name)
	}
	return f.loadSettledFiles(names)
}

// loadForWrite reads the settled files a write changes: those of the
// peers that have an item settled in f (settled by this call, or kept in
// its peer's file by an older node) and those that hold items due to
// leave at now.
func (f *file) loadForWrite(now time.Time) error {
	var names []string
	for _, it := range f.Items {
		if !it.Settled() {
			continue
		}
		if name := statefile.PeerFileName(it.FromURL); !f.isLoaded(name) {
			names = append(names, name)
		}
	}
	for name, ix := range f.index {
		if ix.expired(now) {
			names = append(names, name)
		}
	}
	return f.loadSettledFiles(names)
}

// loadHolding reads the settled files that may hold an item of items, so
// that Enqueue keeps its rule by hash and by ID over every item: the files
// whose index lists an item's ID or the ID its hash gives, and the file of
// its own peer.
func (f *file) loadHolding(items []Item) error {
	if len(f.index) == 0 || len(items) == 0 {
		return nil
	}
	owner := map[string]string{} // settled ID → the file that holds it
	for name, ix := range f.index {
		for _, ids := range [][]string{ix.Done, ix.Failed, ix.Skipped} {
			for _, id := range ids {
				owner[id] = name
			}
		}
	}
	var names []string
	for _, it := range items {
		for _, id := range []string{it.ID, it.Hash.Hex(12)} {
			if name, ok := owner[id]; ok {
				names = append(names, name)
			}
		}
		if name := statefile.PeerFileName(it.FromURL); f.index[name] != nil {
			names = append(names, name)
		}
	}
	return f.loadSettledFiles(names)
}

// settledCounts returns how many settled items f holds or indexes, by
// status, and whether some are due to leave at now.
func (f *file) settledCounts(now time.Time) (map[string]int, bool) {
	counts := map[string]int{StatusDone: 0, StatusFailed: 0, StatusSkipped: 0}
	expired := false
	for _, ix := range f.index {
		ix.count(counts)
		expired = expired || ix.expired(now)
	}
	for _, it := range f.Items {
		if it.Settled() {
			counts[it.Status]++
			expired = expired || it.Expired(now)
		}
	}
	return counts, expired
}

// writeSettled writes the settled files of the peers whose file was read,
// before their files of mesh-state/queue/ go: each holds the peer's
// settled items, and one that holds none is removed.
func (f *file) writeSettled(settled map[string]*file) error {
	files := map[string][]byte{}
	var gone []string
	for name := range f.loaded {
		part := settled[name]
		if part == nil {
			gone = append(gone, name)
			continue
		}
		data, err := part.encode()
		if err != nil {
			return err
		}
		files[name] = data
	}
	for name := range settled {
		if !f.isLoaded(name) {
			return fmt.Errorf("settled items of %s whose file was not read", name)
		}
	}
	slices.Sort(gone)
	_, err := f.cache.Update(SettledPath(f.path), files, f.loaded, gone)
	return err
}

// loadSettledFiles reads each named settled file once, in name order, so
// that the reads a call makes do not depend on the order it found them in.
func (f *file) loadSettledFiles(names []string) error {
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if err := f.loadSettled(name); err != nil {
			return err
		}
	}
	return nil
}
