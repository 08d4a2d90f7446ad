package logtiles

import (
	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/translog"
)

// Verify checks, with the tiles of tree to, that the entries from index
// from on are its leaves and that to extends prev (when prev is a smaller
// tree, not empty), and returns them: bundle after bundle, at most
// maxEntries, and none after the bundle in which the reader fetched its
// byte budget, unless it holds it already. An error is a *fetch.Error
// (the log's host failed), a *Refusal, or tlog's word that a tile does
// not hash to the root: Judge sorts them.
func (r *Reader) Verify(prev, to tlog.Tree, from, maxEntries int64) ([][]byte, error) {
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
		if err := r.Consistent(prev, to); err != nil {
			return nil, err
		}
	}
	return r.entries(from, i, to.N), nil
}

// Consistent checks, with the tiles of tree to, that it extends tree
// prev: a proof that does not check is a *Refusal of kind Fork.
func (r *Reader) Consistent(prev, to tlog.Tree) error {
	proof, err := tlog.ProveTree(to.N, prev.N, tlog.TileHashReader(to, r))
	if err != nil {
		return err
	}
	if err := tlog.CheckTree(proof, to.N, to.Hash, prev.N, prev.Hash); err != nil {
		return &Refusal{Kind: Fork, Why: "no consistency proof joins the checkpoints: " + err.Error()}
	}
	return nil
}

// entries returns the entries [from, to) of a tree of size n that the
// bundles read hold.
func (r *Reader) entries(from, to, n int64) [][]byte {
	out := make([][]byte, 0, to-from)
	for i := from; i < to; {
		t := tlog.TileForIndex(translog.TileHeight, tlog.StoredHashIndex(0, i))
		got := r.bundles[tileOf(t, n)]
		first := t.N << translog.TileHeight
		if i-first >= int64(len(got)) {
			break // not read: Verify read every bundle of [from, to)
		}
		for ; i < to && i-first < int64(len(got)); i++ {
			out = append(out, got[i-first])
		}
	}
	return out
}

// holds reports whether the bundle of entry i of a tree of size n was
// read already.
func (r *Reader) holds(i, n int64) bool {
	t := tlog.TileForIndex(translog.TileHeight, tlog.StoredHashIndex(0, i))
	_, ok := r.bundles[tileOf(t, n)]
	return ok
}

// tileOf is level-0 tile t at the width a tree of size n gives it, the
// key the bundles are kept under.
func tileOf(t tlog.Tile, n int64) tlog.Tile {
	t.W = int(min(n-t.N<<translog.TileHeight, 1<<translog.TileHeight))
	return t
}
