package logsource

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/translog"
)

// Bounds of a log's files: a hash tile holds 256 hashes, an entry bundle
// 256 entries of at most translog.MaxEntryBytes after their 2-byte length.
const (
	maxHashTileBytes = 256 * tlog.HashSize
	maxBundleBytes   = 256 * (translog.MaxEntryBytes + 2)
)

// getFunc fetches a file of the peer's log/ directory, by path under it.
type getFunc func(ctx context.Context, path string, max int64) ([]byte, error)

// tileReader is a tlog.TileReader over one peer's published log, for one
// poll: a hash tile of level 0 is the leaf hashes of its entry bundle,
// which is fetched once and kept for the entries it holds; one of level 1
// and up is derived from the tile the pin kept of its place and the roots
// of the full tiles below it, or else fetched. Catching up n entries costs
// their bundles. Nothing it returns is trusted until tlog.TileHashReader
// verified it against a signed root.
type tileReader struct {
	ctx     context.Context
	get     getFunc
	tiles   map[tlog.Tile][]byte   // hash tiles as fetched or derived
	bundles map[tlog.Tile][][]byte // entries of each level-0 tile
	served  map[string][]byte      // every file fetched, by path, for evidence
	// kept are the verified tiles the pin kept of the tree accepted
	// (Pin.Tiles); derived says a tile was derived from them.
	kept    map[tlog.Tile][]byte
	derived bool
	// saved are the tiles of level 1 and up tlog verified (SaveTiles).
	saved map[tlog.Tile][]byte
	// bytes are the bytes fetched; past maxBytes (when not 0) the read
	// stops after the bundle it is in (verify), and no bundle is fetched
	// to derive a tile.
	bytes, maxBytes int64
}

func newTileReader(ctx context.Context, get getFunc, kept map[tlog.Tile][]byte, maxBytes int64) *tileReader {
	return &tileReader{ctx: ctx, get: get, tiles: map[tlog.Tile][]byte{}, bundles: map[tlog.Tile][][]byte{},
		served: map[string][]byte{}, kept: kept, saved: map[tlog.Tile][]byte{}, maxBytes: maxBytes}
}

// spent reports whether the reader fetched its byte budget.
func (r *tileReader) spent() bool { return r.maxBytes > 0 && r.bytes >= r.maxBytes }

// Height is C2SP tlog-tiles' height.
func (r *tileReader) Height() int { return translog.TileHeight }

// SaveTiles notes the tiles of level 1 and up that tlog verified, for the
// pin to keep the rightmost of each level (rightmost).
func (r *tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	for i, t := range tiles {
		if t.L > 0 {
			r.saved[t] = data[i]
		}
	}
}

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
	} else if d, ok := r.derive(t); ok {
		data = d
	} else {
		raw, err := r.fetch(t, maxHashTileBytes)
		if err != nil {
			return nil, err
		}
		if len(raw) < t.W*tlog.HashSize {
			return nil, &alteredError{kind: logpin.AlarmAlteredTile, path: translog.TilePath(t), why: fmt.Sprintf("%d bytes, %d hashes expected", len(raw), t.W)}
		}
		data = raw[:t.W*tlog.HashSize]
	}
	r.tiles[t] = data
	return data, nil
}

// derive computes hash tile t from the kept tile of its place, which it
// extends, and the roots of the full tiles below it that complete it
// since: hashes tlog verifies against the signed root like fetched ones.
func (r *tileReader) derive(t tlog.Tile) ([]byte, bool) {
	var base tlog.Tile
	var data []byte
	for k, d := range r.kept {
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

// rightmost is, for each level from 1 up, the verified tile of the
// highest index: what the pin keeps for the next poll.
func (r *tileReader) rightmost() map[tlog.Tile][]byte {
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
		return nil, &alteredError{kind: logpin.AlarmAlteredEntry, path: translog.TilePath(b), why: err.Error()}
	}
	r.bundles[t] = entries[:t.W]
	return entries[:t.W], nil
}

// fetch gets tile t's file, or for a partial tile no longer served, the
// full tile whose prefix it is (docs/protocol.md §3.4).
func (r *tileReader) fetch(t tlog.Tile, max int64) ([]byte, error) {
	path := translog.TilePath(t)
	raw, err := r.get(r.ctx, path, max)
	if fetch.IsKind(err, fetch.KindNotFound) && t.W < 1<<translog.TileHeight {
		full := t
		full.W = 1 << translog.TileHeight
		path = translog.TilePath(full)
		raw, err = r.get(r.ctx, path, max)
	}
	if err != nil {
		return nil, err
	}
	r.served[path] = raw
	r.bytes += int64(len(raw))
	return raw, nil
}

// entries returns the entries [from, to) of a tree of size n that the
// bundles read hold.
func (r *tileReader) entries(from, to, n int64) [][]byte {
	out := make([][]byte, 0, to-from)
	for i := from; i < to; {
		t := tlog.TileForIndex(translog.TileHeight, tlog.StoredHashIndex(0, i))
		got := r.bundles[tileOf(t, n)]
		first := t.N << translog.TileHeight
		if i-first >= int64(len(got)) {
			break // not read: verify read every bundle of [from, to)
		}
		for ; i < to && i-first < int64(len(got)); i++ {
			out = append(out, got[i-first])
		}
	}
	return out
}

// tileOf is level-0 tile t at the width a tree of size n gives it, the
// key the bundles are kept under.
func tileOf(t tlog.Tile, n int64) tlog.Tile {
	t.W = int(min(n-t.N<<translog.TileHeight, 1<<translog.TileHeight))
	return t
}

// evidence names every file this reader fetched whose kind matches.
func (r *tileReader) evidence(bundles bool) []logpin.Evidence {
	var out []logpin.Evidence
	for path, raw := range r.served {
		if isBundle(path) == bundles {
			out = append(out, logpin.Evidence{Path: path, SHA256: manifest.HashBytes(raw)})
		}
	}
	sortEvidence(out)
	return out
}

// alteredError is a tile or bundle that cannot be what the log signed.
type alteredError struct {
	kind, path, why string
}

func (e *alteredError) Error() string { return fmt.Sprintf("%s: %s", e.path, e.why) }

// forkError is a signed tree that no consistency proof joins to the one
// accepted before.
type forkError struct{ err error }

func (e *forkError) Error() string {
	return "no consistency proof joins the checkpoints: " + e.err.Error()
}

// verify checks, with the tiles of tree to, that the entries from index
// from on are its leaves and that to extends prev, and returns them:
// bundle after bundle, at most maxEntries, and none after the bundle in
// which the reader fetched its byte budget, unless it holds it already.
// An error is a *fetch.Error (the peer failed), an *alteredError or a
// *forkError, or tlog's word that a tile does not hash to the root.
func (r *tileReader) verify(prev, to tlog.Tree, from, maxEntries int64) ([][]byte, error) {
	thr := tlog.TileHashReader(to, r)
	end := min(to.N, from+maxEntries)
	i := from
	for i < end && (i == from || !r.spent() || r.holds(i, to.N)) {
		next := min(end, (i>>translog.TileHeight+1)<<translog.TileHeight)
		indexes := make([]int64, 0, next-i)
		for j := i; j < next; j++ {
			indexes = append(indexes, tlog.StoredHashIndex(0, j))
		}
		if _, err := thr.ReadHashes(indexes); err != nil {
			return nil, err
		}
		i = next
	}
	if prev.N > 0 && prev.N < to.N {
		if err := consistent(thr, prev, to); err != nil {
			return nil, err
		}
	}
	return r.entries(from, i, to.N), nil
}

// holds reports whether the bundle of entry i of a tree of size n was
// read already.
func (r *tileReader) holds(i, n int64) bool {
	t := tlog.TileForIndex(translog.TileHeight, tlog.StoredHashIndex(0, i))
	_, ok := r.bundles[tileOf(t, n)]
	return ok
}

// consistent checks that tree to, read through thr, extends tree prev.
func consistent(thr tlog.HashReader, prev, to tlog.Tree) error {
	proof, err := tlog.ProveTree(to.N, prev.N, thr)
	if err != nil {
		return err
	}
	if err := tlog.CheckTree(proof, to.N, to.Hash, prev.N, prev.Hash); err != nil {
		return &forkError{err}
	}
	return nil
}

// diagnose tells an entry bundle that disagrees with the published leaf
// hashes from a hash tile that does not hash to the signed root, after
// tlog refused the tiles: it fetches the level-0 hash tiles of the
// bundles read and compares them with the bundles' leaf hashes.
func (r *tileReader) diagnose() *alteredError {
	for t := range r.bundles {
		published, err := r.get(r.ctx, translog.TilePath(t), maxHashTileBytes)
		if err == nil && string(published) != string(r.tiles[t]) {
			return &alteredError{kind: logpin.AlarmAlteredEntry, path: translog.TilePath(bundleOf(t)), why: "its entries' leaf hashes are not the published hash tile's, and the tree's root is signed"}
		}
	}
	return &alteredError{kind: logpin.AlarmAlteredTile, why: "the hash tiles do not hash to the signed root"}
}

func bundleOf(t tlog.Tile) tlog.Tile {
	t.L = -1
	return t
}

// asAltered is err as an *alteredError when it says the log's files
// cannot be what it signed, or nil for a failure to fetch them.
func (r *tileReader) asAltered(err error) *alteredError {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return nil
	}
	var ae *alteredError
	if errors.As(err, &ae) {
		return ae
	}
	return r.diagnose()
}
