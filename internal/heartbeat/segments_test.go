package heartbeat

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestFirstHeartbeatSealsAnOldNodesLedger: a node whose ledger an older
// node wrote (every record in its peer's file) seals the records past the
// window into segments at its first heartbeat, loses none of them, and
// its next heartbeat, finding nothing new, writes nothing.
func TestFirstHeartbeatSealsAnOldNodesLedger(t *testing.T) {
	mesh := newSimMesh(t, 3)
	dir := newNode(t, mesh.roster(), "")
	beat(t, dir, testNow)
	p := filepath.Join(dir, node.LedgerFile)
	if segs, _ := statefile.ReadSegments(p); len(segs) != 0 {
		t.Fatalf("segments %v after the first heartbeat: nothing is past the window", segs)
	}
	before, err := ledger.Load(p)
	if err != nil || len(before.Traces) == 0 {
		t.Fatalf("ledger after the first heartbeat: %d traces, %v", len(before.Traces), err)
	}
	later := testNow.Add(200 * 24 * time.Hour)
	beat(t, dir, later)
	segs, err := statefile.ReadSegments(p)
	if shards := peerShards(before); err != nil || len(segs) != shards {
		t.Fatalf("segments %d (%v) after 200 days, want one per shard of the %d peers: %d", len(segs), err, len(mesh.peers), shards)
	}
	for rel := range segs {
		if !strings.HasPrefix(rel, "shard-") {
			t.Errorf("segment %s, want a shard segment", rel)
		}
	}
	_, files, _ := statefile.Read(p)
	if len(files) != 0 {
		t.Errorf("peers' files %d after sealing, want none: no peer published since", len(files))
	}
	after, err := ledger.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after.SortedTraces(), before.SortedTraces()) || !reflect.DeepEqual(after.Validations, before.Validations) {
		t.Errorf("the sealed ledger's records differ from the old node's")
	}
	// The ledger is what sealing is about: a heartbeat that finds nothing
	// new rewrites none of it. (hosts.json may still change: the peers,
	// quiet for 200 days, are polled max_interval apart on a walk from
	// their last news offset by their URL's hash, docs/decisions.md
	// "Adaptive polling", so the jump lands between two of their polls
	// unless the random port's hash aligns them; the host's stale
	// robots.txt is fetched again at the first of those polls, up to 6
	// hours later, in this heartbeat or the next.)
	was := ledgerFiles(t, dir)
	beat(t, dir, later.Add(30*time.Minute))
	if now := ledgerFiles(t, dir); !reflect.DeepEqual(now, was) {
		t.Error("a heartbeat that found nothing new after sealing rewrote the ledger")
	}
}

// peerShards counts the shards of the peers whose traces l holds (the
// first byte of the sha256 of a peer's directory name modulo 16): one
// shard segment each for a quarter they all sealed. The test server's
// random port decides how many.
func peerShards(l *ledger.Ledger) int {
	shards := map[byte]bool{}
	for _, tr := range l.Traces {
		sum := sha256.Sum256([]byte(strings.TrimSuffix(statefile.PeerFileName(tr.AgentURL), ".json")))
		shards[sum[0]%16] = true
	}
	return len(shards)
}

// ledgerFiles are the bytes and modification times of the ledger's files
// and segments, by path.
func ledgerFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	p := filepath.Join(dir, node.LedgerFile)
	for _, root := range []string{statefile.Dir(p), statefile.SegmentsDir(p)} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(path)
			out[path] = info.ModTime().String() + "\n" + string(data)
			return err
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return out
}

// TestHeartbeatWithNewsReadsTheSealedRecordsFromTheirSummaries: after
// sealing, a heartbeat with news reads the segments' summaries, never the
// segments (here replaced by junk of their size, which a read of them
// refuses), and leaves the node as a heartbeat that read every segment
// whole does, byte for byte (docs/decisions.md, "The ledger's window").
func TestHeartbeatWithNewsReadsTheSealedRecordsFromTheirSummaries(t *testing.T) {
	mesh := newSimMesh(t, 3)
	dir := newNode(t, mesh.roster(), "")
	beat(t, dir, testNow)
	later := testNow.Add(200 * 24 * time.Hour)
	beat(t, dir, later)
	p := filepath.Join(dir, node.LedgerFile)
	sealed, err := ledger.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := statefile.ListSegments(p)
	if shards := peerShards(sealed); err != nil || len(segs) != shards {
		t.Fatalf("segments %d (%v) after 200 days, want one per shard of the peers: %d", len(segs), err, shards)
	}
	// The twin reads every segment whole: its summaries are gone.
	twin := t.TempDir()
	if err := os.CopyFS(twin, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	summaries, _ := filepath.Glob(filepath.Join(statefile.SegmentsDir(filepath.Join(twin, node.LedgerFile)), "*.summary"))
	if len(summaries) == 0 {
		t.Fatal("no summary of the segments")
	}
	for _, f := range summaries {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	kept := map[string][]byte{}
	for _, s := range segs {
		fp := filepath.Join(statefile.SegmentsDir(p), filepath.FromSlash(s.Rel))
		if kept[fp], err = os.ReadFile(fp); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fp, bytes.Repeat([]byte{'x'}, int(s.Size)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Peers quiet for a week are polled again within a day, each at its
	// own time: both nodes beat every 30 minutes until the news is read.
	mesh.publish(0, 1)
	found := false
	for at := later.Add(7 * 24 * time.Hour); !found && at.Before(later.Add(9*24*time.Hour)); at = at.Add(30 * time.Minute) {
		mesh.setNow(at)
		found = beat(t, dir, at).NewTraces == 1
		if twinFound := beat(t, twin, at).NewTraces == 1; twinFound != found {
			t.Fatalf("at %s the twin found news %v, the node %v", at, twinFound, found)
		}
	}
	if !found {
		t.Fatal("the trace published was never read")
	}
	for fp, data := range kept {
		if err := os.WriteFile(fp, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, want := relFiles(t, dir), relFiles(t, twin)
	// The record of derived state digests the work tree, junk included.
	delete(got, node.DerivedFile)
	delete(want, node.DerivedFile)
	if !reflect.DeepEqual(got, want) {
		for name := range want {
			if got[name] != want[name] {
				t.Errorf("%s differs from the twin's that read every segment whole", name)
			}
		}
		t.Errorf("%d files, want %d", len(got), len(want))
	}
}

// relFiles are the bytes of every file of the node at dir but its lock
// files, by slash path.
func relFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".lock") {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
