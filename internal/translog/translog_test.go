package translog

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/manifest"
)

const testOrigin = "node.example/mesh"

// testKey is a key pair for tests, made once.
var testSKey, testVKey = func() (string, string) {
	s, v, err := GenerateKey(testOrigin)
	if err != nil {
		panic(err)
	}
	return s, v
}()

func entriesN(n int) []Entry {
	out := make([]Entry, n)
	for i := range out {
		body := fmt.Sprintf("trace %d", i+1)
		out[i] = Entry{Seq: manifest.Seq(i + 1), Hash: manifest.HashBytes([]byte(body)), File: fmt.Sprintf("traces/%04d.md", i+1),
			Type: "knowledge", Category: "pebble", Submitted: time.Date(2026, 3, 1, 0, 0, i, 0, time.UTC)}
	}
	return out
}

func update(t *testing.T, old map[string][]byte, entries []Entry) map[string][]byte {
	t.Helper()
	files, err := Update(old, entries, testSKey)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// verify checks files the way a reader does, with x/mod alone: the
// checkpoint's signature, every tile against the signed root, and every
// entry against its leaf hash.
func verify(t *testing.T, files map[string][]byte) Checkpoint {
	t.Helper()
	v, err := note.NewVerifier(testVKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(files[CheckpointFile], note.VerifierList(v))
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	cp, err := ParseCheckpoint(n.Text)
	if err != nil {
		t.Fatal(err)
	}
	tr := tlog.TileHashReader(tlog.Tree{N: cp.Size, Hash: cp.Root}, mapTiles(files))
	if root, err := tlog.TreeHash(cp.Size, tr); err != nil || root != cp.Root {
		t.Fatalf("tree hash %v, %v; want %v", root, err, cp.Root)
	}
	entries, err := EntriesOf(files, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		leaf, err := tr.ReadHashes([]int64{tlog.StoredHashIndex(0, int64(i))})
		if err != nil || leaf[0] != tlog.RecordHash(e) {
			t.Fatalf("entry %d does not hash to its leaf: %v", i, err)
		}
	}
	return cp
}

// mapTiles reads tiles from files by their C2SP path.
type mapTiles map[string][]byte

func (m mapTiles) Height() int { return TileHeight }
func (m mapTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		data, ok := m[TilePath(tile)]
		if !ok {
			return nil, fmt.Errorf("no tile %s", TilePath(tile))
		}
		out[i] = data
	}
	return out, nil
}
func (m mapTiles) SaveTiles([]tlog.Tile, [][]byte) {}

func TestUpdateWritesALogReadersVerify(t *testing.T) {
	for _, n := range []int{1, 3, 255, 256, 257, 600} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			files := update(t, nil, entriesN(n))
			if cp := verify(t, files); cp.Size != int64(n) || cp.Origin != testOrigin {
				t.Errorf("checkpoint %+v", cp)
			}
		})
	}
}

func TestUnchangedLogGivesTheSameBytes(t *testing.T) {
	files := update(t, nil, entriesN(300))
	again := update(t, files, entriesN(300))
	if !maps.EqualFunc(files, again, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Error("an unchanged log changed its files")
	}
}

func TestGrownLogIsConsistentWithTheOldCheckpoint(t *testing.T) {
	old := update(t, nil, entriesN(250))
	oldCP := verify(t, old)
	grown := update(t, old, entriesN(520))
	newCP := verify(t, grown)
	full := "tile/0/000"
	if string(grown[full]) == "" {
		t.Fatal("no full tile")
	}
	tr := tlog.TileHashReader(tlog.Tree{N: newCP.Size, Hash: newCP.Root}, mapTiles(grown))
	proof, err := tlog.ProveTree(newCP.Size, oldCP.Size, tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(proof, newCP.Size, newCP.Root, oldCP.Size, oldCP.Root); err != nil {
		t.Errorf("grown log is not consistent with the old checkpoint: %v", err)
	}
}

func TestCategoryStaysAsFirstLogged(t *testing.T) {
	old := update(t, nil, entriesN(5))
	later := entriesN(6)
	later[2].Category = "rock" // a newer reading of the trace
	files := update(t, old, later)
	got, err := EntriesOf(files, 6)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := ParseEntry(got[2]); e.Category != "pebble" {
		t.Errorf("category rewritten to %q", e.Category)
	}
}

func TestUpdateRefusesToRewriteHistory(t *testing.T) {
	old := update(t, nil, entriesN(300))
	other, _, _ := GenerateKey(testOrigin)
	cases := []struct {
		name    string
		files   func() map[string][]byte
		entries func() []Entry
	}{
		{"a row altered", func() map[string][]byte { return old }, func() []Entry {
			e := entriesN(301)
			e[7].Hash = manifest.HashBytes([]byte("other"))
			return e
		}},
		{"rows gone", func() map[string][]byte { return old }, func() []Entry { return entriesN(299) }},
		{"an entry bundle altered", func() map[string][]byte {
			f := maps.Clone(old)
			b := []byte(string(f["tile/entries/000"]))
			copy(b[2:], "seq 9")
			f["tile/entries/000"] = b
			return f
		}, func() []Entry { return entriesN(301) }},
		{"a bundle missing", func() map[string][]byte {
			f := maps.Clone(old)
			delete(f, "tile/entries/001.p/44")
			return f
		}, func() []Entry { return entriesN(301) }},
		{"checkpoint signed by another key", func() map[string][]byte {
			f := maps.Clone(old)
			cp, err := Sign(Checkpoint{Origin: testOrigin, Size: 300}, other)
			if err != nil {
				t.Fatal(err)
			}
			f[CheckpointFile] = cp
			return f
		}, func() []Entry { return entriesN(301) }},
		{"checkpoint's root not the tiles'", func() map[string][]byte {
			f := maps.Clone(old)
			cp, err := Sign(Checkpoint{Origin: testOrigin, Size: 300, Root: tlog.RecordHash([]byte("x"))}, testSKey)
			if err != nil {
				t.Fatal(err)
			}
			f[CheckpointFile] = cp
			return f
		}, func() []Entry { return entriesN(301) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Update(c.files(), c.entries(), testSKey)
			var he *HistoryError
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want a HistoryError", err)
			}
		})
	}
}

func TestTilePathsAreC2SPs(t *testing.T) {
	cases := map[tlog.Tile]string{
		{H: 8, L: 0, N: 0, W: 256}:          "tile/0/000",
		{H: 8, L: 1, N: 2, W: 7}:            "tile/1/002.p/7",
		{H: 8, L: -1, N: 1234067, W: 256}:   "tile/entries/x001/x234/067",
		{H: 8, L: -1, N: 0, W: 44}:          "tile/entries/000.p/44",
		{H: 8, L: 2, N: 1000, W: tileWidth}: "tile/2/x001/000",
	}
	for tile, want := range cases {
		if got := TilePath(tile); got != want {
			t.Errorf("%+v: %s, want %s", tile, got, want)
		}
	}
}

func TestEntryRefusesWhatItCannotSpellOnce(t *testing.T) {
	good := entriesN(1)[0]
	b, err := good.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if e, err := ParseEntry(b); err != nil || e.Seq != 1 || e.File != good.File {
		t.Fatalf("round trip: %+v %v", e, err)
	}
	bad := map[string]string{
		"newline in type":    strings.Replace(string(b), "type knowledge", "type know\nledge", 1),
		"key out of order":   strings.Replace(string(b), "seq 1\nhash", "hash", 1),
		"leading zero seq":   strings.Replace(string(b), "seq 1", "seq 01", 1),
		"upper-case hash":    strings.Replace(string(b), "sha256:", "SHA256:", 1),
		"no final newline":   strings.TrimSuffix(string(b), "\n"),
		"time not canonical": strings.Replace(string(b), "2026-03-01T00:00:00Z", "2026-03-01T01:00:00+01:00", 1),
	}
	for name, text := range bad {
		if _, err := ParseEntry([]byte(text)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := (Entry{Seq: 1, Hash: good.Hash, File: "a\tb"}).Marshal(); err == nil {
		t.Error("a tab in a file was marshaled")
	}
}

func TestVerifierKeyIsTheGeneratedOne(t *testing.T) {
	// Keys whose base64 holds a '+' are common: try enough of them.
	for i := range 64 {
		s, v, err := GenerateKey(fmt.Sprintf("n%d.example/mesh", i))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := VerifierKey(s); err != nil || got != v {
			t.Fatalf("VerifierKey(%s) = %s, %v; want %s", s, got, err, v)
		}
	}
}

func TestSetKeyRewritesTheOneLogKeyLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"replaced in place", "# IDENTITY\n\nname: ada\nlog_key: old\nrole: x\n", "# IDENTITY\n\nname: ada\nlog_key: new\nrole: x\n"},
		{"a second line removed", "log_key: a\nname: ada\n  log_key: b\n", "log_key: new\nname: ada\n"},
		{"added when missing", "name: ada", "name: ada\nlog_key: new\n"},
		{"added to an empty file", "", "log_key: new\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SetKey([]byte(tt.in), "new")
			if string(got) != tt.want {
				t.Fatalf("SetKey = %q, want %q", got, tt.want)
			}
			if keys := Keys(got); len(keys) != 1 || keys[0] != "new" {
				t.Fatalf("Keys = %v", keys)
			}
		})
	}
}
