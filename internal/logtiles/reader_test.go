package logtiles

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/translog"
)

// served is a log's files by path under log/, as its host serves them,
// and the paths asked for.
type served struct {
	files map[string][]byte
	asked []string
}

func (s *served) get(_ context.Context, path string, max int64) ([]byte, error) {
	s.asked = append(s.asked, path)
	data, ok := s.files[path]
	if !ok {
		return nil, &fetch.Error{Kind: fetch.KindNotFound, Err: errors.New("404")}
	}
	if int64(len(data)) > max {
		return nil, &fetch.Error{Kind: fetch.KindTooLarge, Err: errors.New("too large")}
	}
	return data, nil
}

// logOf is a log of n entries tagged tag: its files and its tree at each
// size.
func logOf(t *testing.T, n int, tag string) (*served, func(int64) tlog.Tree) {
	t.Helper()
	var tree translog.Tree
	for i := range n {
		if err := tree.Append(fmt.Appendf(nil, "%s %d\n", tag, i)); err != nil {
			t.Fatal(err)
		}
	}
	files, err := tree.Tiles()
	if err != nil {
		t.Fatal(err)
	}
	return &served{files: files}, func(size int64) tlog.Tree {
		root, err := tree.Root(size)
		if err != nil {
			t.Fatal(err)
		}
		return tlog.Tree{N: size, Hash: root}
	}
}

var bounds = Options{MaxHashTile: 256 * tlog.HashSize, MaxBundle: 256 * (translog.MaxEntryBytes + 2)}

func TestVerifyReadsTheEntriesOfATreeAndItsConsistency(t *testing.T) {
	s, tree := logOf(t, 600, "x")
	r := NewReader(context.Background(), s.get, bounds)
	got, err := r.Verify(tree(300), tree(600), 300, 1000)
	if err != nil || len(got) != 300 || string(got[0]) != "x 300\n" || string(got[299]) != "x 599\n" {
		t.Fatalf("%d entries, err %v", len(got), err)
	}
}

// TestPartialTileNoLongerServedIsReadFromTheFullTile: a tree older than
// the one served reads its partial bundle from the full tile, and its
// hash tile of level 1 is the one kept of it.
func TestPartialTileNoLongerServedIsReadFromTheFullTile(t *testing.T) {
	s, _ := logOf(t, 512, "x")
	old, tree := logOf(t, 300, "x")
	o := bounds
	o.Kept = map[tlog.Tile][]byte{{H: translog.TileHeight, L: 1, N: 0, W: 1}: old.files["tile/1/000.p/1"]}
	r := NewReader(context.Background(), s.get, o)
	got, err := r.Verify(tlog.Tree{}, tree(300), 256, 1000)
	if err != nil || len(got) != 44 || string(got[43]) != "x 299\n" || !r.Derived() {
		t.Fatalf("%d entries, err %v, asked %v", len(got), err, s.asked)
	}
}

// TestVerifyStopsAfterTheBundleThatSpendsTheBudget: the bundle that
// reaches the byte budget is the last read.
func TestVerifyStopsAfterTheBundleThatSpendsTheBudget(t *testing.T) {
	s, tree := logOf(t, 1000, "x")
	o := bounds
	o.MaxBytes = 1
	r := NewReader(context.Background(), s.get, o)
	got, err := r.Verify(tlog.Tree{}, tree(1000), 0, 1000)
	if err != nil || len(got) != 256 {
		t.Fatalf("%d entries read with a budget of one byte, err %v", len(got), err)
	}
}

func TestVerifyRefusesWhatTheTreeDidNotSign(t *testing.T) {
	t.Run("altered bundle", func(t *testing.T) {
		s, tree := logOf(t, 300, "x")
		s.files["tile/entries/000"][5] ^= 1
		r := NewReader(context.Background(), s.get, bounds)
		_, err := r.Verify(tlog.Tree{}, tree(300), 0, 1000)
		if rf := r.Judge(err); rf == nil || rf.Kind != AlteredBundle || rf.Path != "tile/entries/000" {
			t.Fatalf("altered bundle: %v, judged %+v", err, rf)
		}
	})
	t.Run("fork", func(t *testing.T) {
		s, tree := logOf(t, 300, "x")
		_, other := logOf(t, 200, "y")
		r := NewReader(context.Background(), s.get, bounds)
		_, err := r.Verify(other(200), tree(300), 200, 1000)
		if rf := r.Judge(err); rf == nil || rf.Kind != Fork || !IsFork(err) {
			t.Fatalf("fork: %v, judged %+v", err, rf)
		}
	})
	t.Run("not served", func(t *testing.T) {
		s, tree := logOf(t, 300, "x")
		delete(s.files, "tile/entries/001.p/44")
		r := NewReader(context.Background(), s.get, bounds)
		_, err := r.Verify(tlog.Tree{}, tree(300), 0, 1000)
		if !fetch.IsKind(err, fetch.KindNotFound) || r.Judge(err) != nil {
			t.Fatalf("bundle not served: %v", err)
		}
	})
}

// TestJudgeComparesOnlyTheHashesOfAHashTile: after tlog refused the
// tiles, a level-0 hash tile is compared with its bundle by its hashes
// alone, read from the full tile when the partial one is no longer
// served, so an altered hash tile is not blamed on a bundle, nor an
// altered bundle on the hash tiles.
func TestJudgeComparesOnlyTheHashesOfAHashTile(t *testing.T) {
	t.Run("junk after a hash tile", func(t *testing.T) {
		s, tree := logOf(t, 300, "x")
		s.files["tile/1/000.p/1"][3] ^= 1
		s.files["tile/0/001.p/44"] = append(s.files["tile/0/001.p/44"], "junk"...)
		r := NewReader(context.Background(), s.get, bounds)
		_, err := r.Verify(tlog.Tree{}, tree(300), 0, 1000)
		if rf := r.Judge(err); rf == nil || rf.Kind != AlteredTile {
			t.Fatalf("altered hash tile, junk after a level-0 one: %v, judged %+v", err, rf)
		}
	})
	t.Run("altered bundle read from the full tile", func(t *testing.T) {
		s, _ := logOf(t, 512, "x")
		old, tree := logOf(t, 300, "x")
		s.files["tile/entries/001"][5] ^= 1 // in entry 256, which the tree of 300 holds
		o := bounds
		o.Kept = map[tlog.Tile][]byte{{H: translog.TileHeight, L: 1, N: 0, W: 1}: old.files["tile/1/000.p/1"]}
		r := NewReader(context.Background(), s.get, o)
		_, err := r.Verify(tlog.Tree{}, tree(300), 256, 1000)
		if rf := r.Judge(err); rf == nil || rf.Kind != AlteredBundle || rf.Path != "tile/entries/001" {
			t.Fatalf("altered bundle of a tree older than the log served: %v, judged %+v", err, rf)
		}
	})
}
