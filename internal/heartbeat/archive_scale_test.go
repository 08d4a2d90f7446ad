package heartbeat

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
)

// TestNodePastTheRowLimitKeepsPublishing is issue 24's node at full
// scale: 100,001 published files, all listed in MANIFEST.md, as a node
// that ran before archiving existed leaves it. bb3f4e4 refused its own
// MANIFEST.md at every heartbeat ("more than 100000 rows", nothing
// published); now one heartbeat archives all but the window and publishes
// the new file.
//
// It writes 100,001 files and takes two to six minutes on two busy cores,
// so it runs only when asked: bash bench/ownhistory.sh.
func TestNodePastTheRowLimitKeepsPublishing(t *testing.T) {
	if os.Getenv("MESHNODE_SCALE_TEST") == "" {
		t.Skip("set MESHNODE_SCALE_TEST=1 (bench/ownhistory.sh): writes 100,001 files")
	}
	t.Parallel()
	dir := newNode(t, nil, "gossip:\n  enabled: false\n")
	const n = manifest.MaxRows + 1
	m := &manifest.Manifest{Agent: "tester", URL: "http://127.0.0.1:1/tester/", Sequence: n,
		Updated: testNow.Add(-time.Hour)}
	if err := os.MkdirAll(filepath.Join(dir, node.DisputesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		rel := fmt.Sprintf("%s/d%06d.md", node.DisputesDir, i)
		data := []byte(fmt.Sprintf("dispute %d\n", i))
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(i), Hash: manifest.HashBytes(data), File: rel,
			Type: node.TypeDispute, Status: publish.StatusPublished, Submitted: testNow.Add(-time.Hour)})
	}
	write(t, dir, node.ManifestFile, string(m.Format()))
	addOwnTraces(t, dir, 0, 1)

	start := time.Now()
	beat(t, dir, testNow)
	first := time.Since(start)
	got := ownManifest(t, dir)
	if got.Sequence != n+1 || got.MaxSeq() != n+1 {
		t.Errorf("sequence %d, highest row %d: the new trace was not published as seq %d", got.Sequence, got.MaxSeq(), n+1)
	}
	if rows := len(got.Entries); rows >= publish.DefaultWindow+publish.DefaultChunk {
		t.Errorf("MANIFEST.md keeps %d rows", rows)
	}
	fi, err := os.Stat(filepath.Join(dir, node.ManifestFile))
	if err != nil || fi.Size() > node.MaxTopFileBytes/2 {
		t.Errorf("MANIFEST.md is %v bytes (%v)", fi.Size(), err)
	}
	s, err := node.Open(dir, node.Options{})
	if err != nil || s.ArchiveErr != nil {
		t.Fatalf("open: %v %v", err, s.ArchiveErr)
	}
	if rows := len(s.Rows()); rows != n+1 {
		t.Errorf("%d rows over MANIFEST.md and its %d pages, want %d", rows, len(s.Archive), n+1)
	}
	start = time.Now()
	beat(t, dir, testNow.Add(cursorStep)) // and the next heartbeat runs too
	t.Logf("first heartbeat %v (archived %d pages), second %v; MANIFEST.md %d rows, %d bytes",
		first.Round(time.Millisecond), len(s.Archive), time.Since(start).Round(time.Millisecond), len(got.Entries), fi.Size())
}
