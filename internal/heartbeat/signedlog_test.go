package heartbeat

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// keyedNode is a node of newNode whose IDENTITY.md publishes a new log
// key; it returns the directory and the signing key.
func keyedNode(t testing.TB) (string, string) {
	t.Helper()
	dir := newNode(t, nil, "")
	skey, vkey, err := translog.GenerateKey("127.0.0.1:1/tester")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, node.IdentityFile, "# IDENTITY\n\nname: tester\n"+translog.IdentityKey+": "+vkey+"\n")
	return dir, skey
}

// beatKeyed is beat with a log key and a MANIFEST.md window (0: default).
func beatKeyed(t testing.TB, dir, skey string, now time.Time, window int) (*report.Summary, error) {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Dir: dir, Config: cfg, Now: func() time.Time { return now }, LogKey: skey,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if window > 0 {
		o.ManifestWindow, o.ManifestChunk = window, testChunk
	}
	return Run(context.Background(), o)
}

// readLog reads the node's log as a peer would, with x/mod alone: the
// checkpoint under the key IDENTITY.md publishes, the tiles against its
// root, and the entries in their bundles against the leaves.
func readLog(t *testing.T, dir string) []string {
	t.Helper()
	identity, err := os.ReadFile(filepath.Join(dir, node.IdentityFile))
	if err != nil {
		t.Fatal(err)
	}
	vkey := strings.TrimSpace(strings.SplitN(string(identity), translog.IdentityKey+":", 2)[1])
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := os.ReadFile(filepath.Join(dir, node.LogDir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	cp, err := translog.ParseCheckpoint(n.Text)
	if err != nil {
		t.Fatal(err)
	}
	files, err := node.ReadLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := tlog.TileHashReader(tlog.Tree{N: cp.Size, Hash: cp.Root}, tileFiles(files))
	entries, err := translog.EntriesOf(files, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, e := range entries {
		leaf, err := tr.ReadHashes([]int64{tlog.StoredHashIndex(0, int64(i))})
		if err != nil || leaf[0] != tlog.RecordHash(e) {
			t.Fatalf("entry %d does not verify: %v", i, err)
		}
		out = append(out, string(e))
	}
	return out
}

type tileFiles map[string][]byte

func (m tileFiles) Height() int { return translog.TileHeight }
func (m tileFiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		data, ok := m[translog.TilePath(tile)]
		if !ok {
			return nil, fmt.Errorf("no tile %s", translog.TilePath(tile))
		}
		out[i] = data
	}
	return out, nil
}
func (m tileFiles) SaveTiles([]tlog.Tile, [][]byte) {}

// ownRows are every row the node published, archive pages included.
func ownRows(t *testing.T, dir string) []manifest.Entry {
	t.Helper()
	snap, err := node.Open(dir, node.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := snap.Rows()
	slices.SortFunc(rows, func(a, b manifest.Entry) int { return int(a.Seq - b.Seq) })
	return rows
}

func TestHeartbeatPublishesItsRowsAsASignedLog(t *testing.T) {
	dir, skey := keyedNode(t)
	addOwnTraces(t, dir, 0, 5)
	write(t, dir, "traces/t005.md", "---\ncategory: rock\n---\n# Rock\n\n## Work\n\nDone.\n")
	for i := range 3 {
		// Three heartbeats, the last two with new traces: MANIFEST.md
		// moves rows into archive pages (window 3), the log keeps them all.
		if i > 0 {
			addOwnTraces(t, dir, 10*i, 10*i+4)
		}
		if _, err := beatKeyed(t, dir, skey, testNow.Add(time.Duration(i)*time.Hour), testWindow); err != nil {
			t.Fatal(err)
		}
		rows := ownRows(t, dir)
		entries := readLog(t, dir)
		if len(entries) != len(rows) {
			t.Fatalf("heartbeat %d: log of %d entries, %d rows published", i, len(entries), len(rows))
		}
		for j, r := range rows {
			e, err := translog.ParseEntry([]byte(entries[j]))
			if err != nil || e.Seq != r.Seq || e.Hash != r.Hash || e.File != r.File || e.Type != r.Type || !e.Submitted.Equal(r.Submitted) {
				t.Fatalf("entry %d = %+v (%v), row %+v", j, e, err, r)
			}
			if want := map[bool]string{true: "rock"}[r.File == "traces/t005.md"]; e.Category != want {
				t.Errorf("%s: category %q, want %q", r.File, e.Category, want)
			}
		}
	}
	if len(ownManifest(t, dir).Archives) == 0 {
		t.Fatal("no archive page: the test does not cover archived rows")
	}
}

func TestIdleHeartbeatLeavesTheLogAsItWas(t *testing.T) {
	dir, skey := keyedNode(t)
	addOwnTraces(t, dir, 0, 3)
	if _, err := beatKeyed(t, dir, skey, testNow, 0); err != nil {
		t.Fatal(err)
	}
	before, err := node.ReadLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := beatKeyed(t, dir, skey, testNow.Add(30*time.Minute), 0)
	if err != nil {
		t.Fatal(err)
	}
	after, err := node.ReadLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Changed || fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("an idle heartbeat changed the log (changed=%v)", sum.Changed)
	}
}

func TestHeartbeatWithoutTheKeyPublishesNoLogAndSaysHow(t *testing.T) {
	dir, skey := keyedNode(t)
	addOwnTraces(t, dir, 0, 2)
	otherSigner, _, err := translog.GenerateKey("127.0.0.1:1/tester")
	if err != nil {
		t.Fatal(err)
	}
	foreign, foreignV, _ := translog.GenerateKey("elsewhere.example")
	cases := []struct {
		name, key, identity, want string
	}{
		{"no key", "", "", "--log-key"},
		{"IDENTITY.md publishes another key", otherSigner, "", "is not the one IDENTITY.md publishes"},
		{"key named for another origin", foreign, "# IDENTITY\n\nlog_key: " + foreignV + "\n", "the node's log origin is 127.0.0.1:1/tester"},
		{"IDENTITY.md publishes none", skey, "# IDENTITY\n\nname: tester\n", "is not the one IDENTITY.md publishes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			if err := os.CopyFS(d, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			if c.identity != "" {
				write(t, d, node.IdentityFile, c.identity)
			}
			sum, err := beatKeyed(t, d, c.key, testNow, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sum.LogUnsigned, c.want) {
				t.Errorf("summary says %q, want it to name %q", sum.LogUnsigned, c.want)
			}
			if _, err := os.Stat(filepath.Join(d, node.LogDir)); !os.IsNotExist(err) {
				t.Errorf("a log was written: %v", err)
			}
			if n := len(ownManifest(t, d).Entries); n != 2 {
				t.Errorf("MANIFEST.md has %d rows, want 2: it is published all the same", n)
			}
		})
	}
}

func TestHeartbeatStopsWhenTheLogWouldRewriteHistory(t *testing.T) {
	dir, skey := keyedNode(t)
	addOwnTraces(t, dir, 0, 3)
	if _, err := beatKeyed(t, dir, skey, testNow, 0); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, node.LogDir, "tile", "entries", "000.p", "3")
	data, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bundle, []byte(strings.Replace(string(data), "seq 2", "seq 9", 1)), 0o644)
	manifestBefore, _ := os.ReadFile(filepath.Join(dir, node.ManifestFile))
	addOwnTraces(t, dir, 3, 4)
	_, err = beatKeyed(t, dir, skey, testNow.Add(time.Hour), 0)
	if err == nil || !strings.Contains(err.Error(), "does not extend") {
		t.Fatalf("heartbeat over an altered log: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, node.ManifestFile)); string(after) != string(manifestBefore) {
		t.Error("MANIFEST.md was published although its log could not be")
	}
}
