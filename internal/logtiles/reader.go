package logtiles

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/translog"
)

// Get fetches a file of a log's log/ directory, by its path under it
// ("tile/0/x001/234"), of at most max bytes. A file not served is a
// *fetch.Error of kind fetch.KindNotFound.
type Get func(ctx context.Context, path string, max int64) ([]byte, error)

// Options are what one read takes of a log.
type Options struct {
	// MaxHashTile and MaxBundle bound a hash tile's and an entry bundle's
	// file: the log's format says how large they can be.
	MaxHashTile, MaxBundle int64
	// Kept are verified tiles of level 1 and up of the tree read before
	// (Rightmost of that read): the grown tree's tiles at their places are
	// derived from them and the new bundles instead of fetched. Nil
	// derives none.
	Kept map[tlog.Tile][]byte
	// MaxBytes, when not 0, is the bytes a read fetches: past it Verify
	// stops after the bundle it is in, and no bundle is fetched to derive
	// a tile.
	MaxBytes int64
}

// Reader is a tlog.TileReader over one log's published files, for one
// read. Nothing it returns is trusted until tlog.TileHashReader verified
// it against a signed root.
type Reader struct {
	ctx     context.Context
	get     Get
	o       Options
	tiles   map[tlog.Tile][]byte   // hash tiles as fetched or derived
	bundles map[tlog.Tile][][]byte // entries of each level-0 tile
	served  map[string][]byte      // every file fetched, by path
	derived bool
	// saved are the tiles of level 1 and up tlog verified (SaveTiles).
	saved map[tlog.Tile][]byte
	bytes int64 // fetched so far
}

// NewReader returns a reader of the log whose files get fetches.
func NewReader(ctx context.Context, get Get, o Options) *Reader {
	return &Reader{ctx: ctx, get: get, o: o, tiles: map[tlog.Tile][]byte{}, bundles: map[tlog.Tile][][]byte{},
		served: map[string][]byte{}, saved: map[tlog.Tile][]byte{}}
}

// spent reports whether the reader fetched its byte budget.
func (r *Reader) spent() bool { return r.o.MaxBytes > 0 && r.bytes >= r.o.MaxBytes }

// Height is C2SP tlog-tiles' height.
func (r *Reader) Height() int { return translog.TileHeight }

// SaveTiles notes the tiles of level 1 and up that tlog verified, for
// Rightmost.
func (r *Reader) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	for i, t := range tiles {
		if t.L > 0 {
			r.saved[t] = data[i]
		}
	}
}

// ReadTiles returns each tile's hashes.
func (r *Reader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
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

// Derived reports whether a tile of this read was derived from the kept
// ones: a failure to verify is then worth judging again on the log's own
// tiles (a reader without Kept), so a fork shows as a fork.
func (r *Reader) Derived() bool { return r.derived }

// Served returns every file the reader fetched, by path under log/, for
// the evidence of a refusal. The caller must not change it.
func (r *Reader) Served() map[string][]byte { return r.served }

// Rightmost is, for each level from 1 up, the verified tile of the
// highest index: what a reader keeps for the next read (Options.Kept).
func (r *Reader) Rightmost() map[tlog.Tile][]byte {
	top := map[int]tlog.Tile{}
	for t := range r.saved {
		if cur, ok := top[t.L]; !ok || t.N > cur.N || t.N == cur.N && t.W > cur.W {
			top[t.L] = t
		}
	}
	out := make(map[tlog.Tile][]byte, len(top))
	for _, t := range top {
		out[t] = r.saved[t]
	}
	return out
}

func (r *Reader) tile(t tlog.Tile) ([]byte, error) {
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
	} else if d, ok := r.derive(t); ok {
		data = d
	} else {
		raw, err := r.fetch(t, r.o.MaxHashTile)
		if err != nil {
			return nil, err
		}
		if len(raw) < t.W*tlog.HashSize {
			return nil, &Refusal{Kind: AlteredTile, Path: translog.TilePath(t), Why: fmt.Sprintf("%d bytes, %d hashes expected", len(raw), t.W)}
		}
		data = raw[:t.W*tlog.HashSize]
	}
	r.tiles[t] = data
	return data, nil
}

// derive computes hash tile t from the kept tile of its place, which it
// extends, and the roots of the full tiles below it that complete it
// since: hashes tlog verifies against the signed root like fetched ones.
func (r *Reader) derive(t tlog.Tile) ([]byte, bool) {
	var base tlog.Tile
	var data []byte
	for k, d := range r.o.Kept {
		if k.L == t.L && k.N == t.N && k.W <= t.W && k.W > base.W {
			base, data = k, d
		}
	}
	if data == nil {
		return nil, false
	}
	out := slices.Clone(data[:base.W*tlog.HashSize])
	for k := base.W; k < t.W; k++ {
		child := tlog.Tile{H: t.H, L: t.L - 1, N: t.N<<translog.TileHeight + int64(k), W: 1 << translog.TileHeight}
		if _, ok := r.tiles[child]; !ok && r.spent() {
			return nil, false // the hash tile costs less than the bundles below it
		}
		cd, err := r.tile(child)
		if err != nil {
			return nil, false
		}
		root := tileRoot(cd)
		out = append(out, root[:]...)
	}
	r.derived = true
	return out, true
}

// tileRoot is the root of a full tile's hashes: the hash one level above
// it in the tree.
func tileRoot(data []byte) tlog.Hash {
	level := make([]tlog.Hash, len(data)/tlog.HashSize)
	for i := range level {
		copy(level[i][:], data[i*tlog.HashSize:])
	}
	for len(level) > 1 {
		next := make([]tlog.Hash, len(level)/2)
		for i := range next {
			next[i] = tlog.NodeHash(level[2*i], level[2*i+1])
		}
		level = next
	}
	return level[0]
}

// bundle returns the first t.W entries of level-0 tile t's bundle.
func (r *Reader) bundle(t tlog.Tile) ([][]byte, error) {
	if e, ok := r.bundles[t]; ok {
		return e, nil
	}
	b := bundleOf(t)
	raw, err := r.fetch(b, r.o.MaxBundle)
	if err != nil {
		return nil, err
	}
	entries, err := translog.ParseBundle(raw)
	if err != nil {
		return nil, &Refusal{Kind: AlteredBundle, Path: translog.TilePath(b), Why: err.Error()}
	}
	if len(entries) < t.W {
		return nil, &Refusal{Kind: AlteredBundle, Path: translog.TilePath(b), Why: fmt.Sprintf("%d entries, %d expected", len(entries), t.W)}
	}
	r.bundles[t] = entries[:t.W]
	return entries[:t.W], nil
}

// fetch gets tile t's file (getTile), kept for the evidence and counted
// in the budget.
func (r *Reader) fetch(t tlog.Tile, max int64) ([]byte, error) {
	raw, path, err := r.getTile(t, max)
	if err != nil {
		return nil, err
	}
	r.served[path] = raw
	r.bytes += int64(len(raw))
	return raw, nil
}

// getTile gets tile t's file, or for a partial tile no longer served, the
// full tile whose prefix it is (docs/protocol.md §3.4), and the path it
// got.
func (r *Reader) getTile(t tlog.Tile, max int64) ([]byte, string, error) {
	path := translog.TilePath(t)
	raw, err := r.get(r.ctx, path, max)
	if fetch.IsKind(err, fetch.KindNotFound) && t.W < 1<<translog.TileHeight {
		full := t
		full.W = 1 << translog.TileHeight
		path = translog.TilePath(full)
		raw, err = r.get(r.ctx, path, max)
	}
	return raw, path, err
}

func bundleOf(t tlog.Tile) tlog.Tile {
	t.L = -1
	return t
}
