package translog

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/manifest"
)

var updateVectors = flag.Bool("update", false, "rewrite the log conformance vectors from their MANIFEST.md")

// logVectors holds the log conformance vectors (conformance/README.md).
const logVectors = "../../conformance/logs"

// vectorKey signs the vectors. It is public here and signs nothing real:
// a vector shows what a log is, not whose.
const vectorKey = "PRIVATE+KEY+ada.example/mesh+726925c7+AeHQpsapOA9X2DWJzOPXcw3u3U9ihGmv4Ec6wBiEk6qa"

// TestLogVectorsVerifyWithXMod checks each vector as another
// implementation would, with x/mod and this test's own reading of the
// formats, none of the package's: the checkpoint under IDENTITY.md's key,
// every tile against its root, and every entry's bytes against its row of
// MANIFEST.md and its leaf. A vector with a pinned/ directory changes the
// log's key: checkKeyVector reads it as a poller that pinned the old key,
// with the package's pure checks, which are what a poller calls.
func TestLogVectorsVerifyWithXMod(t *testing.T) {
	cases, err := os.ReadDir(logVectors)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			dir := filepath.Join(logVectors, c.Name())
			if *updateVectors {
				if kv, ok := keyVectors[c.Name()]; ok {
					writeKeyVector(t, dir, kv(t))
				} else {
					writeVector(t, dir)
				}
			}
			checkVector(t, dir)
			if _, err := os.Stat(filepath.Join(dir, "pinned")); err == nil {
				checkKeyVector(t, dir)
			}
		})
	}
}

func checkVector(t *testing.T, dir string) {
	read := func(rel string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	_, vkey, ok := strings.Cut(string(read("IDENTITY.md")), "\nlog_key: ")
	if !ok {
		t.Fatal("IDENTITY.md has no log_key line")
	}
	v, err := note.NewVerifier(strings.TrimSpace(strings.SplitN(vkey, "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(read("log/checkpoint"), note.VerifierList(v))
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || lines[0] != v.Name() {
		t.Fatalf("checkpoint body %q", n.Text)
	}
	var root tlog.Hash
	if r, err := base64.StdEncoding.DecodeString(lines[2]); err != nil || copy(root[:], r) != tlog.HashSize {
		t.Fatalf("root %q", lines[2])
	}
	tiles := vectorTiles{read: func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, "log", filepath.FromSlash(p))) }}
	hr := tlog.TileHashReader(tlog.Tree{N: size, Hash: root}, tiles)
	m, _, err := manifest.Parse(read("MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(m.Entries)) != size {
		t.Fatalf("log of %d entries, MANIFEST.md of %d rows", size, len(m.Entries))
	}
	for i := int64(0); i < size; i++ {
		row := m.Entries[size-1-i] // MANIFEST.md lists newest first
		entry := vectorEntry(t, tiles, i, size)
		want := fmt.Sprintf("seq %d\nhash %s\nfile %s\ntype %s\ncategory ", row.Seq, row.Hash, row.File, row.Type)
		rest, ok := bytes.CutPrefix(entry, []byte(want))
		category, submitted, _ := strings.Cut(string(rest), "\nsubmitted ")
		if !ok || (category != "" && category != "rock" && category != "pebble") || submitted != row.Submitted.UTC().Format(time.RFC3339)+"\n" {
			t.Fatalf("entry %d = %q, row %+v", i, entry, row)
		}
		leaf, err := hr.ReadHashes([]int64{tlog.StoredHashIndex(0, i)})
		if err != nil || leaf[0] != tlog.RecordHash(entry) {
			t.Fatalf("entry %d is not its leaf: %v", i, err)
		}
	}
}

// vectorTiles reads tiles by C2SP path, spelled here independently.
type vectorTiles struct{ read func(string) ([]byte, error) }

func c2spPath(tile tlog.Tile) string {
	level := strconv.Itoa(tile.L)
	if tile.L == -1 {
		level = "entries"
	}
	n := fmt.Sprintf("%03d", tile.N%1000)
	for x := tile.N / 1000; x > 0; x /= 1000 {
		n = fmt.Sprintf("x%03d/%s", x%1000, n)
	}
	p := "tile/" + level + "/" + n
	if tile.W < 256 {
		p += ".p/" + strconv.Itoa(tile.W)
	}
	return p
}

func (v vectorTiles) Height() int { return 8 }
func (v vectorTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		data, err := v.read(c2spPath(tile))
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}
func (v vectorTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// vectorEntry reads entry i of a log of size entries from its bundle.
func vectorEntry(t *testing.T, tiles vectorTiles, i, size int64) []byte {
	t.Helper()
	first := i / 256 * 256
	data, err := tiles.read(c2spPath(tlog.Tile{H: 8, L: -1, N: i / 256, W: int(min(size-first, 256))}))
	if err != nil {
		t.Fatal(err)
	}
	for k := first; ; k++ {
		n := int(binary.BigEndian.Uint16(data))
		if k == i {
			return data[2 : 2+n]
		}
		data = data[2+n:]
	}
}

// writeVector rewrites a vector's log and IDENTITY.md from its MANIFEST.md
// (-update), with the category a trace of type capability declares.
func writeVector(t *testing.T, dir string) {
	data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := manifest.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	for i := len(m.Entries) - 1; i >= 0; i-- {
		category := map[bool]string{true: "rock"}[m.Entries[i].Type == "capability"]
		entries = append(entries, EntryOf(m.Entries[i], category))
	}
	files, err := Update(nil, entries, vectorKey)
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "log"))
	for name, data := range files {
		p := filepath.Join(dir, "log", filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vkey, err := VerifierKey(vectorKey)
	if err != nil {
		t.Fatal(err)
	}
	identity := "# IDENTITY\n\nname: ada\njoined: 2026-03-01\nrole: the agent of the log conformance vector\n" + IdentityKey + ": " + vkey + "\n"
	if err := os.WriteFile(filepath.Join(dir, "IDENTITY.md"), []byte(identity), 0o644); err != nil {
		t.Fatal(err)
	}
}
