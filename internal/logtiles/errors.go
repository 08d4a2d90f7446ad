package logtiles

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/translog"
)

// Kind is what a refused read shows of a log.
type Kind int

const (
	// Fork is a signed tree that no consistency proof joins to the one
	// read before: whoever holds the key signed two histories.
	Fork Kind = iota + 1
	// AlteredBundle is an entry bundle that cannot be what the log
	// signed.
	AlteredBundle
	// AlteredTile is a hash tile that cannot be what the log signed, or
	// hash tiles that do not hash to the signed root.
	AlteredTile
)

// Refusal is a read's refusal of what a log served: a fork, or files
// that cannot be what it signed.
type Refusal struct {
	Kind Kind
	// Path is the file at fault, under log/; "" when tlog refused the
	// hash tiles as a whole, or for a fork.
	Path, Why string
}

func (e *Refusal) Error() string {
	if e.Path == "" {
		return e.Why
	}
	return e.Path + ": " + e.Why
}

// IsFork reports whether err is a Refusal of kind Fork.
func IsFork(err error) bool {
	var rf *Refusal
	return errors.As(err, &rf) && rf.Kind == Fork
}

// Judge sorts err, a failure of r's Verify or Consistent, into what it
// shows of the log: nil for a failure to fetch its files (the host
// failed, nothing shows against the log), else the Refusal. After tlog
// refused the tiles it tells an entry bundle that disagrees with the
// published leaf hashes from a hash tile that does not hash to the
// signed root, by fetching the level-0 hash tiles of the bundles read and
// comparing their hashes with the bundles' leaf hashes. It is the one
// place a failed read is sorted (logsource's alarms, relay's faults).
func (r *Reader) Judge(err error) *Refusal {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return nil
	}
	var rf *Refusal
	if errors.As(err, &rf) {
		return rf
	}
	for _, t := range r.bundlesRead() {
		published, err := r.published(t)
		if err == nil && !bytes.Equal(published, r.tiles[t]) {
			return &Refusal{Kind: AlteredBundle, Path: r.servedPath(bundleOf(t)),
				Why: "its entries' leaf hashes are not the published hash tile's, and the tree's root is signed"}
		}
	}
	return &Refusal{Kind: AlteredTile, Why: "the hash tiles do not hash to the signed root"}
}

// bundlesRead are the level-0 tiles whose bundles r read, in index order.
func (r *Reader) bundlesRead() []tlog.Tile {
	out := make([]tlog.Tile, 0, len(r.bundles))
	for t := range r.bundles {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b tlog.Tile) int { return int(a.N - b.N) })
	return out
}

// published is the t.W hashes of level-0 hash tile t as the log serves
// it: what follows them in the file is no hash of t's, and a partial
// tile no longer served is read from the full one. A shorter file is an
// error: a hash tile at fault says nothing of the bundle.
func (r *Reader) published(t tlog.Tile) ([]byte, error) {
	raw, path, err := r.getTile(t, r.o.MaxHashTile)
	if err != nil {
		return nil, err
	}
	n := t.W * tlog.HashSize
	if len(raw) < n {
		return nil, fmt.Errorf("%s: %d bytes, %d hashes expected", path, len(raw), t.W)
	}
	return raw[:n], nil
}

// servedPath is the path tile t was fetched at: its own, or the full
// tile's when the partial one was no longer served.
func (r *Reader) servedPath(t tlog.Tile) string {
	path := translog.TilePath(t)
	if _, ok := r.served[path]; !ok {
		t.W = 1 << translog.TileHeight
		path = translog.TilePath(t)
	}
	return path
}
