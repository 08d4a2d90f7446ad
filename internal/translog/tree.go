package translog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// TileHeight is C2SP tlog-tiles' fixed height: 256 hashes (or entries) a
// full tile.
const TileHeight = 8

// tileWidth is the number of hashes, or entries, in a full tile.
const tileWidth = 1 << TileHeight

// Tree is a log in memory: its entries, in order, and the hashes of the
// Merkle tree over them (RFC 6962, as tlog stores them).
type Tree struct {
	entries [][]byte
	hashes  []tlog.Hash
}

// Size is the number of entries.
func (t *Tree) Size() int64 { return int64(len(t.entries)) }

// ReadHashes reads stored hashes by index, for tlog.
func (t *Tree) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(t.hashes)) {
			return nil, fmt.Errorf("hash %d not stored", x)
		}
		out[i] = t.hashes[x]
	}
	return out, nil
}

// Append adds an entry.
func (t *Tree) Append(entry []byte) error {
	if len(entry) > MaxEntryBytes {
		return fmt.Errorf("entry of %d bytes, more than %d", len(entry), MaxEntryBytes)
	}
	hs, err := tlog.StoredHashes(t.Size(), entry, t)
	if err != nil {
		return fmt.Errorf("hash entry %d: %w", t.Size(), err)
	}
	t.entries = append(t.entries, entry)
	t.hashes = append(t.hashes, hs...)
	return nil
}

// Root is the tree hash of the first n entries.
func (t *Tree) Root(n int64) (tlog.Hash, error) {
	if n > t.Size() {
		return tlog.Hash{}, fmt.Errorf("tree of %d entries has no root at %d", t.Size(), n)
	}
	return tlog.TreeHash(n, t)
}

// Tiles returns every tile of the tree, by path under the log's
// directory: the hash tiles (tile/<L>/<N>[.p/<W>]) and the entry bundles
// (tile/entries/<N>[.p/<W>]), full tiles and the partial ones its size
// needs.
func (t *Tree) Tiles() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, tile := range tlog.NewTiles(TileHeight, 0, t.Size()) {
		data, err := tlog.ReadTileData(tile, t)
		if err != nil {
			return nil, fmt.Errorf("tile %s: %w", tile.Path(), err)
		}
		out[TilePath(tile)] = data
		if tile.L == 0 {
			bundle := tile
			bundle.L = -1
			out[TilePath(bundle)] = t.bundle(bundle)
		}
	}
	return out, nil
}

// bundle is the entries of a data tile, each after its length as a
// big-endian uint16 (C2SP tlog-tiles' entry bundle).
func (t *Tree) bundle(tile tlog.Tile) []byte {
	var out []byte
	first := tile.N * tileWidth
	for _, e := range t.entries[first : first+int64(tile.W)] {
		out = binary.BigEndian.AppendUint16(out, uint16(len(e)))
		out = append(out, e...)
	}
	return out
}

// TilePath is a tile's path under the log's directory, as C2SP
// tlog-tiles spells it: tlog's path without the height, and "entries"
// for the data tiles.
func TilePath(tile tlog.Tile) string {
	p := strings.TrimPrefix(tile.Path(), fmt.Sprintf("tile/%d/", TileHeight))
	if rest, ok := strings.CutPrefix(p, "data/"); ok {
		return "tile/entries/" + rest
	}
	return "tile/" + p
}

// ParseBundle splits an entry bundle into its entries.
func ParseBundle(data []byte) ([][]byte, error) {
	var out [][]byte
	for len(data) > 0 {
		if len(data) < 2 {
			return nil, errors.New("entry bundle: truncated length")
		}
		n := int(binary.BigEndian.Uint16(data))
		data = data[2:]
		if n > len(data) {
			return nil, fmt.Errorf("entry bundle: entry of %d bytes, %d left", n, len(data))
		}
		out = append(out, data[:n])
		data = data[n:]
	}
	return out, nil
}

// EntriesOf reads the first n entries of a log from its entry bundles,
// by path as Tiles names them.
func EntriesOf(files map[string][]byte, n int64) ([][]byte, error) {
	var out [][]byte
	for first := int64(0); first < n; first += tileWidth {
		w := min(n-first, tileWidth)
		tile := tlog.Tile{H: TileHeight, L: -1, N: first / tileWidth, W: int(w)}
		data, ok := files[TilePath(tile)]
		if !ok && w < tileWidth {
			// A newer size's bundle holds this one as its prefix.
			for k := w + 1; k <= tileWidth && !ok; k++ {
				tile.W = int(k)
				data, ok = files[TilePath(tile)]
			}
		}
		if !ok {
			return nil, fmt.Errorf("entry bundle %s is missing", TilePath(tlog.Tile{H: TileHeight, L: -1, N: first / tileWidth, W: int(w)}))
		}
		got, err := ParseBundle(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", TilePath(tile), err)
		}
		if int64(len(got)) < w {
			return nil, fmt.Errorf("%s: %d entries, want %d", TilePath(tile), len(got), w)
		}
		out = append(out, got[:w]...)
	}
	return out, nil
}
