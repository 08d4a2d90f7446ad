package queue

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// file is the content of the queue, or of one of its files.
type file struct {
	Items map[string]*Item `json:"items"` // key: Item.ID
	// read are the bytes of each file as read, by name, so a write under
	// the same lock rewrites only the files that changed without opening
	// the others again.
	read map[string][]byte
}

// read loads the queue named by path: the directory path without ".json",
// one file per peer, and the single file older nodes kept at path, if it
// is still there (statefile.Dir); it opens only the files that changed
// since c last read or wrote them.
func read(path string, c *statefile.Cache) (*file, error) {
	legacy, files, err := c.Read(path)
	if err != nil {
		return nil, err
	}
	f := &file{Items: map[string]*Item{}, read: files}
	if legacy != nil {
		if err := f.merge(legacy); err != nil {
			return nil, statefile.Corrupt(path, legacy, err)
		}
	}
	dir := statefile.Dir(path)
	for name, data := range files {
		if err := f.merge(data); err != nil {
			return nil, statefile.Corrupt(filepath.Join(dir, name), data, err)
		}
	}
	return f, nil
}

func (f *file) merge(data []byte) error {
	in, err := decode(data)
	if err != nil {
		return err
	}
	maps.Copy(f.Items, in.Items)
	return nil
}

func decode(data []byte) (*file, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	items := map[string]*Item{}
	for id, it := range f.Items {
		if it != nil {
			it.ID = id
			items[id] = it
		}
	}
	f.Items = items
	return &f, nil
}

// SettledRetention is how long a done, failed or skipped item stays in
// the queue, for the inbox to show, before a write drops it. The ledger
// and validations/ keep what SIGNAL needs; the queue keeps the work.
const SettledRetention = 7 * 24 * time.Hour

// files returns the queue's files by name, one per peer (state.PeerFileName
// of the item's from_url), each with keys sorted and two-space indent.
func (f *file) files() (map[string][]byte, error) {
	parts := map[string]*file{}
	for id, it := range f.Items {
		it.normalize()
		name := statefile.PeerFileName(it.FromURL)
		if parts[name] == nil {
			parts[name] = &file{Items: map[string]*Item{}}
		}
		parts[name].Items[id] = it
	}
	out := make(map[string][]byte, len(parts))
	for name, part := range parts {
		data, err := json.MarshalIndent(part, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode queue: %w", err)
		}
		out[name] = append(data, '\n')
	}
	return out, nil
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
// SettledRetention before now, so the next write drops it.
func (it *Item) Expired(now time.Time) bool {
	return it.Terminal() && it.UpdatedAt.Before(now.Add(-SettledRetention))
}

func (f *file) write(path string, now time.Time, c *statefile.Cache) error {
	f.prune(now)
	files, err := f.files()
	if err != nil {
		return err
	}
	_, err = c.Rewrite(path, files, f.read)
	return err
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
