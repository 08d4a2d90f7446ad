package queue

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
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
// A write puts each item in its new file before it takes it out of its
// old one, so a crash at any point loses nothing, and an item found in
// both is the one of mesh-state/queue/, whichever way it was moving
// (docs/decisions.md, "A quiet heartbeat"):
//
//  1. the settled files: the items that settle arrive; the items going
//     back to work stay as they were;
//  2. the peers' files of mesh-state/queue/: the items going back to work
//     arrive, the items that settle leave, and the index lists the first
//     under Back, as their settled file still holds them;
//  3. when some went back to work: their settled copies leave;
//  4. and their peers' index stops listing them.
//
// A crash after step 1 leaves an item that settles at work as it was: the
// call did not happen for it, and its settled copy is overwritten when it
// settles again. A crash after step 2 or 3 leaves an item going back to
// work at work as it is now, and an index with Back, which the next write
// (Init, each heartbeat's first, makes one) reads to finish steps 3 and 4.

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
	Oldest  time.Time `json:"oldest,omitzero"` // the earliest UpdatedAt among them
	// Back lists the items gone back to work whose copy the settled file
	// may still hold: a write that stopped before it removed them.
	Back []string `json:"back,omitempty"`
	// Moves lists, in the file of the URL a peer's items move to, the
	// moves a write has not finished (move.go).
	Moves []Move `json:"moves,omitempty"`
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

// clone returns a copy of ix that shares no memory with it.
func (ix *index) clone() *index {
	c := *ix
	c.Done, c.Failed, c.Skipped, c.Back = slices.Clone(ix.Done), slices.Clone(ix.Failed), slices.Clone(ix.Skipped), slices.Clone(ix.Back)
	c.Moves = slices.Clone(ix.Moves)
	return &c
}

// expired reports whether some of the indexed items were settled more
// than SettledRetention before now.
func (ix *index) expired(now time.Time) bool {
	listed := len(ix.Done) + len(ix.Failed) + len(ix.Skipped)
	return listed > 0 && ix.Oldest.Before(now.Add(-SettledRetention))
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
			f.held[name] = append(f.held[name], id)
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
// its peer's file by an older node), those that hold items due to leave
// at now, and those that may still hold items gone back to work.
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
		if ix.expired(now) || len(ix.Back) > 0 {
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
		for _, id := range []string{it.ID, validation.ID(it.Hash)} {
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

// goingBack returns, by settled file, the copies it holds, as read, of
// the items now at work: items going back to work, and copies a write
// that stopped left behind.
func (f *file) goingBack() (map[string]map[string]*Item, error) {
	back := map[string]map[string]*Item{}
	for name, ids := range f.held {
		var was *file
		for _, id := range ids {
			if it := f.Items[id]; it == nil || it.Settled() {
				continue
			}
			if was == nil {
				var err error
				if was, err = decode(f.loaded[name]); err != nil {
					return nil, fmt.Errorf("settled items of %s: %w", name, err)
				}
				back[name] = map[string]*Item{}
			}
			back[name][id] = was.Items[id]
		}
	}
	return back, nil
}

// withCopies returns the settled files with the copies of back added.
func withCopies(settled map[string]*file, back map[string]map[string]*Item) map[string]*file {
	if len(back) == 0 {
		return settled
	}
	out := make(map[string]*file, len(settled)+len(back))
	for name, part := range settled {
		out[name] = &file{Items: maps.Clone(part.Items)}
	}
	for name, copies := range back {
		if out[name] == nil {
			out[name] = &file{Items: map[string]*Item{}}
		}
		maps.Copy(out[name].Items, copies)
	}
	return out
}

// writeSettled writes the settled files of the peers whose file was read:
// each holds the peer's items in settled, and one that holds none is
// removed.
func (f *file) writeSettled(settled map[string]*file) error {
	files := map[string][]byte{}
	var gone []string
	for name := range f.loaded {
		part := settled[name]
		if part == nil {
			gone = append(gone, name)
			continue
		}
		data, err := part.settledBytes(f.loaded[name])
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
	if _, err := f.cache.Update(SettledPath(f.path), files, f.loaded, gone); err != nil {
		return err
	}
	for _, name := range gone {
		f.loaded[name] = nil
	}
	maps.Copy(f.loaded, files)
	return nil
}

// settledBytes encodes part as a settled file holds it (encodeSettled),
// or returns was, the file's bytes as read, when they hold the same items:
// a file an older node wrote, read but not changed, is not rewritten.
func (part *file) settledBytes(was []byte) ([]byte, error) {
	data, err := part.encodeSettled()
	if err != nil || was == nil || bytes.Equal(data, was) || !olderSettled(was) {
		return data, err
	}
	old, err := decode(was)
	if err != nil {
		return data, nil // what was there is replaced, as any other change
	}
	if again, err := old.encodeSettled(); err == nil && bytes.Equal(again, data) {
		return was, nil
	}
	return data, nil
}

// olderSettled reports whether data may be a settled file in an older
// form, which wrote each item's "id", or its "hash" under its ID
// (encodeSettled writes neither of an item its hash names): only such a
// file can hold the same items in other bytes, so only it is decoded
// again. A title or a reason that spells "id" or "hash" is escaped
// (\"id\"), so the raw key appears only as a key; a false positive
// costs a decode.
func olderSettled(data []byte) bool {
	return bytes.Contains(data, []byte(`"id":`)) || bytes.Contains(data, []byte(`"hash":`))
}

// encodeSettled encodes the settled items of part without what decode
// gives back: an item's ID and hash, its key being its hash when the hash
// gives the ID (itemID), its ID otherwise; and its UpdatedAt when it is
// its QueuedAt (an item scored in the heartbeat that queued it). Each new
// record adds its settled item to a file, so what the item repeats is paid
// at every heartbeat with news (docs/decisions.md, "What a settled item
// keeps").
func (part *file) encodeSettled() ([]byte, error) {
	out := &file{Items: make(map[string]*Item, len(part.Items))}
	for id, it := range part.Items {
		c := *it
		c.ID = ""
		if c.UpdatedAt.Equal(c.QueuedAt) {
			c.UpdatedAt = time.Time{}
		}
		key := id
		if c.Hash.Valid() && validation.ID(c.Hash) == id {
			key, c.Hash = string(c.Hash), ""
		}
		out.Items[key] = &c
	}
	return out.encode()
}

// itemID is the ID of it, filed under key: key itself, or the ID its
// hash gives when key is a hash ("sha256:<64 hex>", which no ID is),
// and then the item's hash, which a settled file leaves out.
func itemID(key string, it *Item) (string, error) {
	h := manifest.Hash(key)
	if !strings.HasPrefix(key, "sha256:") {
		return key, nil
	}
	if !h.Valid() {
		return "", fmt.Errorf("item key %q: not an ID, nor a hash sha256:<64 lowercase hex>", key)
	}
	if it.Hash != "" && it.Hash != h {
		return "", fmt.Errorf("item filed under %s says its hash is %s", h, it.Hash)
	}
	it.Hash = h
	return validation.ID(h), nil
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
