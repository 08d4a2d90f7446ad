package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/state"
)

// file is the content of queue.json.
type file struct {
	Items map[string]*Item `json:"items"` // key: Item.ID
}

func read(path string) (*file, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Items: map[string]*Item{}}, nil
	}
	if err != nil {
		return nil, &state.CorruptError{Path: path, Err: err}
	}
	f, err := decode(data)
	if err != nil {
		return nil, state.Corrupt(path, data, err)
	}
	return f, nil
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

func (f *file) marshal() ([]byte, error) {
	for _, it := range f.Items {
		it.normalize()
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode queue: %w", err)
	}
	return append(data, '\n'), nil
}

func (f *file) write(path string) error {
	data, err := f.marshal()
	if err != nil {
		return err
	}
	_, err = atomicfile.WriteFileIfChanged(path, data, 0o644)
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
