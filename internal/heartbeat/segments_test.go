package heartbeat

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
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
	if err != nil || len(segs) != len(mesh.peers) {
		t.Fatalf("segments %d (%v) after 200 days, want one per peer: %d", len(segs), err, len(mesh.peers))
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
