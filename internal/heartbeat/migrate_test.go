package heartbeat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestOldSingleFileStateMigratesOnTheNextHeartbeat turns a node's state
// back into the layout of older nodes (mesh-state/polling-cursors.json,
// ledger.json and queue.json, one file each) and runs a heartbeat: it
// reads them, fetches nothing it had already seen, and leaves the same
// state split into one file per peer, the single files gone.
func TestOldSingleFileStateMigratesOnTheNextHeartbeat(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n") // a founder validates from the start
	if sum := beat(t, dir, testNow); sum.ValidationsPublished != 2 {
		t.Fatalf("first heartbeat published %d validations, want 2", sum.ValidationsPublished)
	}
	st, led := loadState(t, dir), loadLedger(t, dir)
	items, err := queue.Open(filepath.Join(dir, node.QueueFile)).List()
	if err != nil || len(items) != 2 {
		t.Fatalf("queue %v, %v", items, err)
	}
	// An older node's single file kept whole hashes, seen from no peer in
	// particular: those of the traces the ledger records.
	seen := map[manifest.Hash]time.Time{}
	for h, tr := range led.Traces {
		seen[h] = tr.FirstSeen
	}
	if len(seen) != len(st.SeenHashes) {
		t.Fatalf("seen hashes %v, ledger's traces %v", st.SeenHashes, seen)
	}
	if err := os.RemoveAll(statefile.Dir(filepath.Join(dir, node.CursorsSeenFile))); err != nil {
		t.Fatal(err) // an older node's single file held them all
	}
	byID := map[string]queue.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	for rel, v := range map[string]any{
		node.CursorsFile: map[string]any{"cursors": st.Cursors, "seen_hashes": seen, "hosts": st.Hosts},
		node.LedgerFile:  led,
		node.QueueFile:   map[string]any{"items": byID},
	} {
		p := filepath.Join(dir, rel)
		if err := os.RemoveAll(statefile.Dir(p)); err != nil {
			t.Fatal(err)
		}
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		write(t, dir, rel, string(data)+"\n")
	}

	sum := beat(t, dir, testNow.Add(time.Hour))
	if sum.Verified != 0 || sum.Queued != 0 || sum.ValidationsPublished != 0 {
		t.Errorf("after the migration the heartbeat verified %d, queued %d, published %d; want nothing again",
			sum.Verified, sum.Queued, sum.ValidationsPublished)
	}
	for _, rel := range []string{node.CursorsFile, node.LedgerFile, node.QueueFile} {
		if _, err := os.Stat(filepath.Join(dir, rel)); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the heartbeat: %v", rel, err)
		}
		if _, files, err := statefile.Read(filepath.Join(dir, rel)); err != nil || len(files) == 0 {
			t.Errorf("%s: %d split files, %v", statefile.Dir(rel), len(files), err)
		}
	}
	if got := loadLedger(t, dir); !reflect.DeepEqual(got.Traces, led.Traces) || !reflect.DeepEqual(got.Validations, led.Validations) || !reflect.DeepEqual(got.Rejected, led.Rejected) {
		t.Errorf("ledger changed by the migration:\n got %+v\nwant %+v", got, led)
	}
	if got := loadState(t, dir); !reflect.DeepEqual(got.SeenHashes, seen) || got.Cursor(good.URL+"/").LastSeenSeq != 2 {
		t.Errorf("cursors or seen hashes lost in the migration: %+v", got)
	}
	after, _ := queue.Open(filepath.Join(dir, node.QueueFile)).List()
	if !reflect.DeepEqual(after, items) {
		t.Errorf("queue changed by the migration:\n got %+v\nwant %+v", after, items)
	}
}
