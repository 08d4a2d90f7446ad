package queue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// decodes counts the files decoded, for tests.
var decodes atomic.Int64

// file is the content of the queue, or of one of its files.
type file struct {
	Items map[string]*Item `json:"items"` // key: Item.ID
	// Settled, in a peer's file of mesh-state/queue/, indexes the peer's
	// settled items, kept in its file of mesh-state/queue-settled/
	// (settled.go).
	Settled *index `json:"settled,omitempty"`

	path  string
	cache *statefile.Cache
	// read are the bytes of each file of mesh-state/queue/ as read, by
	// name, so a write under the same lock rewrites only the files that
	// changed without opening the others again.
	read map[string][]byte
	// index are the indexes of the settled files not read, by name;
	// loaded the bytes of those read (nil for a file not there), and held
	// the IDs each of those held.
	index  map[string]*index
	loaded map[string][]byte
	held   map[string][]string
	legacy bool // the single file older nodes kept was read
	// moves are the moves of a peer's items to another URL that this call
	// makes or that a write stopped in (move.go), which the write finishes.
	moves []Move
}

// read loads the queue named by path: the directory path without ".json",
// one file per peer, and the single file older nodes kept at path, if it
// is still there (statefile.Dir); it opens only the files that changed
// since c last read or wrote them. The settled items it leaves where they
// are, indexed, for loadSettled to read when a call needs them.
//
// Each file's content is decoded once for as long as its bytes stay the
// same (m): a call after another that read the same files (a heartbeat's
// Init, then Active) copies what the first decoded rather than decode it
// again.
func read(path string, c *statefile.Cache, m memo) (*file, error) {
	legacy, files, err := c.Read(path)
	if err != nil {
		return nil, err
	}
	f := &file{Items: map[string]*Item{}, path: path, cache: c, read: files,
		index: map[string]*index{}, loaded: map[string][]byte{}, held: map[string][]string{}}
	if legacy != nil {
		f.legacy = true
		if _, err := f.merge(legacy); err != nil {
			return nil, statefile.Corrupt(path, legacy, err)
		}
	}
	for name := range m {
		if files[name] == nil {
			delete(m, name)
		}
	}
	names := slices.Sorted(maps.Keys(files))
	ins := make([]*file, len(names))
	for i, name := range names {
		in, err := m.decode(name, files[name])
		if err == nil {
			var moves []Move
			moves, err = movesOf(in)
			f.moves = append(f.moves, moves...)
		}
		if err != nil {
			return nil, statefile.Corrupt(statefile.FilePath(path, name), files[name], err)
		}
		ins[i] = in
	}
	for i, in := range ins {
		for _, it := range in.Items {
			f.take(it)
		}
		if in.Settled != nil {
			f.index[names[i]] = in.Settled.clone()
		}
	}
	if len(f.moves) > 0 {
		if err := f.finishMoves(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// memo keeps, by name, each file of mesh-state/queue/ as last decoded:
// its bytes and what they hold, which no call changes (read hands out
// copies).
type memo map[string]decoded

type decoded struct {
	data []byte
	file *file
}

// decode returns what data, the bytes of the file name, holds: from m
// when it decoded the same bytes last.
func (m memo) decode(name string, data []byte) (*file, error) {
	if d, ok := m[name]; ok && bytes.Equal(d.data, data) {
		return d.file, nil
	}
	in, err := decode(data)
	if err != nil {
		delete(m, name)
		return nil, err
	}
	m[name] = decoded{data: data, file: in}
	return in, nil
}

// unfinished reports whether f holds what a write must finish: what only
// an older node writes (the single file, or settled items in a peer's
// file of mesh-state/queue/), a move back to work that stopped before
// its settled copy left (index.Back), or a move of a peer's items to
// another URL that stopped before its end (index.Moves).
func (f *file) unfinished() bool {
	if f.legacy || len(f.moves) > 0 {
		return true
	}
	for _, it := range f.Items {
		if it.Settled() {
			return true
		}
	}
	for _, ix := range f.index {
		if len(ix.Back) > 0 {
			return true
		}
	}
	return false
}

// merge adds the items of one file to f and returns its index of settled
// items, if it has one.
func (f *file) merge(data []byte) (*index, error) {
	in, err := decode(data)
	if err != nil {
		return nil, err
	}
	maps.Copy(f.Items, in.Items)
	return in.Settled, nil
}

func decode(data []byte) (*file, error) {
	decodes.Add(1)
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	items := map[string]*Item{}
	for key, it := range f.Items {
		if it != nil {
			id, err := itemID(key, it)
			if err != nil {
				return nil, err
			}
			if items[id] != nil {
				return nil, fmt.Errorf("item %s under two keys", id)
			}
			it.ID = id
			if it.UpdatedAt.IsZero() {
				it.UpdatedAt = it.QueuedAt
			}
			if it.Settled() {
				it.forgetUnread()
			}
			items[id] = it
		}
	}
	f.Items = items
	return &f, nil
}

func (f *file) encode() ([]byte, error) {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode queue: %w", err)
	}
	return append(data, '\n'), nil
}

// SettledRetention is how long a done, failed or skipped item stays in
// the queue, for the inbox to show, before a write drops it. The ledger
// and validations/ keep what SIGNAL needs; the queue keeps the work.
const SettledRetention = 7 * 24 * time.Hour

// files returns the queue's files by peer (state.PeerFileName of the
// item's from_url): in mesh-state/queue/, each peer's items at work and
// the index of its settled ones, listing under Back the IDs of back (its
// items going back to work whose settled copy is still to leave); in
// mesh-state/queue-settled/, the settled items of the peers whose
// settled file was read. Each is encoded with keys sorted and two-space
// indent.
func (f *file) files(back map[string]map[string]*Item) (active map[string][]byte, settled map[string]*file, err error) {
	parts, settled := map[string]*file{}, map[string]*file{}
	part := func(m map[string]*file, name string) *file {
		if m[name] == nil {
			m[name] = &file{Items: map[string]*Item{}}
		}
		return m[name]
	}
	for id, it := range f.Items {
		it.normalize()
		name := statefile.PeerFileName(it.FromURL)
		if it.Settled() {
			part(settled, name).Items[id] = it
		} else {
			part(parts, name).Items[id] = it
		}
	}
	for name, ix := range f.index {
		part(parts, name).Settled = ix
	}
	for name, s := range settled {
		part(parts, name).Settled = indexOf(s.Items)
	}
	for name, copies := range back {
		p := part(parts, name)
		if p.Settled == nil {
			p.Settled = &index{}
		}
		p.Settled.Back = slices.Sorted(maps.Keys(copies))
	}
	f.withMoves(parts)
	active = make(map[string][]byte, len(parts))
	for name, p := range parts {
		if active[name], err = p.encode(); err != nil {
			return nil, nil, err
		}
	}
	return active, settled, nil
}

// prune drops the items settled more than SettledRetention before now.
func (f *file) prune(now time.Time) {
	for id, it := range f.Items {
		if it.Expired(now) {
			delete(f.Items, id)
		}
	}
}

// Expired reports whether the item was settled more than
// SettledRetention before now, so the next write drops it. A done item
// whose result is still to publish is not settled, and never expires.
func (it *Item) Expired(now time.Time) bool {
	return it.Settled() && it.UpdatedAt.Before(now.Add(-SettledRetention))
}

// write writes f back, each item's new file before its old one, so a
// crash at any point leaves every item in its old state or its new one,
// never in neither (settled.go, move.go): first, when items move to
// another peer's URL, the files they arrive in; then the settled files it changes,
// still holding the items going back to work; then the peers' files of
// mesh-state/queue/. When some items go back to work, their settled
// copies then leave, and last their peers' index stops listing them. It
// drops the items settled more than SettledRetention before now, reading
// the settled files that hold some.
func (f *file) write(now time.Time) error {
	if err := f.loadForWrite(now); err != nil {
		return err
	}
	f.prune(now)
	back, err := f.goingBack()
	if err != nil {
		return err
	}
	active, settled, err := f.files(back)
	if err != nil {
		return err
	}
	if len(f.moves) > 0 {
		if err := f.writeMoveTargets(active, withCopies(settled, back)); err != nil {
			return err
		}
	}
	if err := f.writeSettled(withCopies(settled, back)); err != nil {
		return err
	}
	if err := f.writeActive(active); err != nil || len(back)+len(f.moves) == 0 {
		return err
	}
	if err := f.writeSettled(settled); err != nil {
		return err
	}
	f.moves = nil
	if active, _, err = f.files(nil); err != nil {
		return err
	}
	return f.writeActive(active)
}

// writeActive writes the peers' files of mesh-state/queue/, those whose
// bytes changed, and removes the others.
func (f *file) writeActive(active map[string][]byte) error {
	if _, err := f.cache.Rewrite(f.path, active, f.read); err != nil {
		return err
	}
	f.read = active
	return nil
}

// sorted returns the items oldest first: by queued time, then seq, then ID.
func (f *file) sorted() []*Item {
	out := make([]*Item, 0, len(f.Items))
	for _, it := range f.Items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.QueuedAt.Equal(b.QueuedAt) {
			return a.QueuedAt.Before(b.QueuedAt)
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.ID < b.ID
	})
	return out
}
