package heartbeat

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestIdleHeartbeatReadsEachStateFileOnce runs a heartbeat that finds
// nothing new over peers whose traces wait in the queue, and counts the
// reads of each file of mesh-state/: one. The queue's files were read
// seven times (by opening the queue, by the count of waiting items, by
// the workers' stored results, by the summary's depths, and again by
// each write to compare), the ledger's and the cursors' twice: about
// 120,000 opens at 10,000 peers. A heartbeat that scores the waiting
// traces read each queue file three times more (to list, claim and
// finish); the queue now keeps what it read and wrote between calls. The
// site's copies were read again by their save, to compare.
func TestIdleHeartbeatReadsEachStateFileOnce(t *testing.T) {
	for _, tc := range []struct {
		name           string
		waiting        int
		standing, late bool // a founder from the first heartbeat, or from the second
	}{
		{"without standing, traces wait", 6, false, false},
		{"a founder, traces scored", 0, true, false},
		{"standing arrives, waiting traces scored", 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mesh := newSimMesh(t, 6)
			for _, p := range mesh.peers {
				p.m.Entries[0].Status = "pending"
				p.body = p.m.Format()
			}
			dir := newNode(t, mesh.roster(), "")
			founder := func() { write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n") }
			if tc.standing {
				founder()
			}
			if first := beat(t, dir, testNow); tc.late && first.Waiting != len(mesh.peers) {
				t.Fatalf("first heartbeat: %d waiting, want %d", first.Waiting, len(mesh.peers))
			}
			if tc.late {
				founder()
			}
			var files []string
			for _, f := range []string{node.QueueFile, node.LedgerFile, node.CursorsFile, node.CopiesFile} {
				got, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(statefile.Dir(f)), "*.json"))
				if err != nil || len(got) < len(mesh.peers) {
					t.Fatalf("%s after the first heartbeat: %v, %v; want a file per peer", f, got, err)
				}
				files = append(files, got...)
			}
			var mu sync.Mutex
			reads := map[string]int{}
			t.Cleanup(statefile.SetReadHook(func(p string) {
				mu.Lock()
				reads[p]++
				mu.Unlock()
			}))
			sum := beat(t, dir, testNow.Add(30*time.Minute))
			if sum.Waiting != tc.waiting || sum.NewTraces != 0 {
				t.Fatalf("second heartbeat: %d waiting, %d new traces; want %d and 0", sum.Waiting, sum.NewTraces, tc.waiting)
			}
			if scored := sum.ValidationsPublished; tc.late && scored != len(mesh.peers) {
				t.Fatalf("second heartbeat published %d validations, want %d", scored, len(mesh.peers))
			}
			for _, f := range files {
				if reads[f] != 1 {
					t.Errorf("%s read %d times, want once", f[len(dir):], reads[f])
				}
			}
		})
	}
}
