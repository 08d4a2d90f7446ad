package queue

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/meshnode/meshnode/internal/statefile"
)

// A peer's items move to another peer's files when its URL changes
// (Store.Rename): those at work from its file of mesh-state/queue/ to the
// new URL's, its settled ones from its settled file to the new URL's. The
// files are written one at a time, so a write puts each item in its new
// file before it takes it out of its old one, and the new URL's queue
// file says, while the move is not finished, which URL moves to it
// (index.Moves): a read that finds such a record takes every item of the
// old URL as the new URL's, and an item found in both peers' files is the
// copy of the new one. The write goes in up to five steps, each file
// written whole:
//
//  1. the new URL's queue file: its items at work arrive, its index lists
//     its settled items (those arriving included) and the move;
//  2. the new URL's settled file: its settled items arrive;
//  3. the settled files as any write writes them: the old URL's is
//     removed;
//  4. the queue files as any write writes them: the old URL's is removed;
//  5. the new URL's queue file again, without the move.
//
// A crash before step 1 leaves the move undone; after it, every read
// answers as after the move, reading the two peers' settled files, and
// the next write (Init, each heartbeat's first, makes one) writes the
// steps again.

// Move is a move of a peer's items from one URL to another that a write
// has not finished: its record, kept in the index of the new URL's file.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Rename moves the items listed at from, at work and settled, to the URL
// to, in one write (Item.MoveTo), and returns how many it moved; nothing
// is written when none is listed at from.
func (q *File) Rename(from, to string) (moved int, err error) {
	if err := checkMove(Move{From: from, To: to}); err != nil {
		return 0, err
	}
	if from == to {
		return 0, nil
	}
	err = q.locked(func(f *file) error {
		if err := f.loadSettledFiles([]string{statefile.PeerFileName(from), statefile.PeerFileName(to)}); err != nil {
			return err
		}
		for _, it := range f.Items {
			if it.MoveTo(from, to) {
				moved++
			}
		}
		if moved == 0 {
			return nil
		}
		f.moves = append(f.moves, Move{From: from, To: to})
		if err := f.write(q.Now()); err != nil {
			return fmt.Errorf("write queue: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("move the queue items of %s to %s: %w", from, to, err)
	}
	return moved, nil
}

// checkMove refuses a move with no URL to move from or to.
func checkMove(m Move) error {
	if m.From == "" || m.To == "" {
		return fmt.Errorf("move queue items from %q to %q: a peer URL is empty", m.From, m.To)
	}
	return nil
}

// movesOf returns the moves the index of a queue file records, refusing
// one that names no URL.
func movesOf(in *file) ([]Move, error) {
	if in.Settled == nil {
		return nil, nil
	}
	for _, m := range in.Settled.Moves {
		if err := checkMove(m); err != nil {
			return nil, err
		}
	}
	return in.Settled.Moves, nil
}

// take adds it, read from a file of mesh-state/queue/, to f, unless f
// holds a copy of it from another file that wins: an item found in two
// peers' files is the copy of the URL an unfinished move goes to, else
// the one read first (read goes in name order).
func (f *file) take(it *Item) {
	if was := f.Items[it.ID]; was != nil && !(f.movedTo(it.FromURL) && !f.movedTo(was.FromURL)) {
		return
	}
	f.Items[it.ID] = it.clone()
}

// movedTo reports whether an unfinished move goes to url.
func (f *file) movedTo(url string) bool {
	return slices.ContainsFunc(f.moves, func(m Move) bool { return m.To == url })
}

// finishMoves makes f hold the items of an unfinished move's old URL at
// its new one, reading both peers' settled files, the new one's first, so
// that a settled item found in both is the new one's copy. An item moved
// twice (A to B, then B to C, both unfinished) ends at the last URL,
// whatever the order the records were read in.
func (f *file) finishMoves() error {
	seen := map[Move]bool{}
	f.moves = slices.DeleteFunc(f.moves, func(m Move) bool {
		dup := seen[m]
		seen[m] = true
		return dup
	})
	for _, m := range f.moves {
		for _, name := range []string{statefile.PeerFileName(m.To), statefile.PeerFileName(m.From)} {
			if err := f.loadSettled(name); err != nil {
				return err
			}
		}
	}
	for _, it := range f.Items {
		// At most one pass per move: records that go round in a circle
		// (a hand edit) cannot loop.
		for range f.moves {
			moved := false
			for _, m := range f.moves {
				moved = it.MoveTo(m.From, m.To) || moved
			}
			if !moved {
				break
			}
		}
	}
	return nil
}

// withMoves records the unfinished moves in the index of their new URL's
// queue file, in parts.
func (f *file) withMoves(parts map[string]*file) {
	for _, m := range f.moves {
		name := statefile.PeerFileName(m.To)
		p := parts[name]
		if p == nil {
			p = &file{Items: map[string]*Item{}}
			parts[name] = p
		}
		ix := &index{}
		if p.Settled != nil {
			ix = p.Settled.clone()
		}
		ix.Moves = append(ix.Moves, m)
		p.Settled = ix
	}
}

// writeMoveTargets writes the files the unfinished moves' items arrive
// in, before any write removes them from their old files: each new URL's
// queue file, which records the move, then its settled file.
func (f *file) writeMoveTargets(active map[string][]byte, settled map[string]*file) error {
	queued, kept := map[string][]byte{}, map[string][]byte{}
	for _, m := range f.moves {
		name := statefile.PeerFileName(m.To)
		queued[name] = active[name]
		if part := settled[name]; part != nil {
			data, err := part.settledBytes(f.loaded[name])
			if err != nil {
				return err
			}
			kept[name] = data
		}
	}
	if _, err := f.cache.Update(f.path, queued, f.read, nil); err != nil {
		return err
	}
	read := maps.Clone(f.read)
	maps.Copy(read, queued)
	f.read = read
	if len(kept) == 0 {
		return nil
	}
	if !f.allLoaded(slices.Collect(maps.Keys(kept))) {
		return errors.New("settled items of a move whose file was not read")
	}
	if _, err := f.cache.Update(SettledPath(f.path), kept, f.loaded, nil); err != nil {
		return err
	}
	maps.Copy(f.loaded, kept)
	return nil
}

// allLoaded reports whether every settled file named was read.
func (f *file) allLoaded(names []string) bool {
	for _, name := range names {
		if !f.isLoaded(name) {
			return false
		}
	}
	return true
}
