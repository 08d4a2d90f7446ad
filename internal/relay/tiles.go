package relay

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/translog"
)

// Bounds of a relay log's files, as of a node's log.
const (
	maxHashTileBytes = (1 << translog.TileHeight) * tlog.HashSize
	maxBundleBytes   = (1 << translog.TileHeight) * (translog.MaxEntryBytes + 2)
)

// getFunc fetches a file of the relay's log/, by path under it.
type getFunc func(ctx context.Context, path string, max int64) ([]byte, error)

// tileReader is a tlog.TileReader over a relay's published log, for one
// read: a level-0 hash tile is the leaf hashes of its entry bundle,
// fetched once and kept for its entries; higher tiles are fetched.
// Nothing it returns is trusted until tlog.TileHashReader verified it
// against the signed root.
type tileReader struct {
	ctx     context.Context
	get     getFunc
	tiles   map[tlog.Tile][]byte
	bundles map[tlog.Tile][][]byte
}

func newTileReader(ctx context.Context, get getFunc) *tileReader {
	return &tileReader{ctx: ctx, get: get, tiles: map[tlog.Tile][]byte{}, bundles: map[tlog.Tile][][]byte{}}
}

// Height is C2SP tlog-tiles' height.
func (r *tileReader) Height() int { return translog.TileHeight }

// SaveTiles keeps nothing: a read starts from the relay's files.
func (r *tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// ReadTiles returns each tile's hashes.
func (r *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, err := r.tile(t)
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (r *tileReader) tile(t tlog.Tile) ([]byte, error) {
	if data, ok := r.tiles[t]; ok {
		return data, nil
	}
	var data []byte
	if t.L == 0 {
		entries, err := r.bundle(t)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			h := tlog.RecordHash(e)
			data = append(data, h[:]...)
		}
	} else {
		raw, err := r.fetch(t, maxHashTileBytes)
		if err != nil {
			return nil, err
		}
		if len(raw) < t.W*tlog.HashSize {
			return nil, &alteredError{fmt.Sprintf("%s: %d bytes, %d hashes expected", translog.TilePath(t), len(raw), t.W)}
		}
		data = raw[:t.W*tlog.HashSize]
	}
	r.tiles[t] = data
	return data, nil
}

// bundle returns the first t.W entries of level-0 tile t's bundle.
func (r *tileReader) bundle(t tlog.Tile) ([][]byte, error) {
	if e, ok := r.bundles[t]; ok {
		return e, nil
	}
	b := t
	b.L = -1
	raw, err := r.fetch(b, maxBundleBytes)
	if err != nil {
		return nil, err
	}
	entries, err := translog.ParseBundle(raw)
	if err == nil && len(entries) < t.W {
		err = fmt.Errorf("%d entries, %d expected", len(entries), t.W)
	}
	if err != nil {
		return nil, &alteredError{fmt.Sprintf("%s: %v", translog.TilePath(b), err)}
	}
	r.bundles[t] = entries[:t.W]
	return entries[:t.W], nil
}

// fetch gets tile t's file, or for a partial tile no longer served, the
// full tile whose prefix it is (docs/protocol.md §3.4).
func (r *tileReader) fetch(t tlog.Tile, max int64) ([]byte, error) {
	raw, err := r.get(r.ctx, translog.TilePath(t), max)
	if fetch.IsKind(err, fetch.KindNotFound) && t.W < 1<<translog.TileHeight {
		full := t
		full.W = 1 << translog.TileHeight
		raw, err = r.get(r.ctx, translog.TilePath(full), max)
	}
	return raw, err
}

// entries verifies the leaves [from, to) of tree against its signed root
// and returns them.
func (r *tileReader) entries(tree tlog.Tree, from, to int64) ([][]byte, error) {
	indexes := make([]int64, 0, to-from)
	for i := from; i < to; i++ {
		indexes = append(indexes, tlog.StoredHashIndex(0, i))
	}
	if _, err := tlog.TileHashReader(tree, r).ReadHashes(indexes); err != nil {
		return nil, err
	}
	out := make([][]byte, 0, to-from)
	for i := from; i < to; i++ {
		t := tlog.TileForIndex(translog.TileHeight, tlog.StoredHashIndex(0, i))
		t.W = int(min(tree.N-t.N<<translog.TileHeight, 1<<translog.TileHeight))
		out = append(out, r.bundles[t][i-t.N<<translog.TileHeight])
	}
	return out, nil
}

// consistent checks that tree to extends tree prev.
func (r *tileReader) consistent(prev, to tlog.Tree) error {
	proof, err := tlog.ProveTree(to.N, prev.N, tlog.TileHashReader(to, r))
	if err != nil {
		return err
	}
	if err := tlog.CheckTree(proof, to.N, to.Hash, prev.N, prev.Hash); err != nil {
		return &forkError{err}
	}
	return nil
}

// alteredError is a tile or bundle that cannot be what the relay signed.
type alteredError struct{ why string }

func (e *alteredError) Error() string { return e.why }

// forkError is a signed tree no consistency proof joins to the last.
type forkError struct{ err error }

func (e *forkError) Error() string {
	return "no consistency proof joins the relay's checkpoints: " + e.err.Error()
}

// faultOf is the fault err shows, or "" for a failure to fetch: tlog's
// refusal of a tile that does not hash to the signed root is an
// alteration.
func faultOf(err error) string {
	var fe *fetch.Error
	var ae *alteredError
	var fk *forkError
	switch {
	case errors.As(err, &fk):
		return FaultFork
	case errors.As(err, &ae):
		return FaultAltered
	case errors.As(err, &fe):
		return ""
	}
	return FaultAltered
}
