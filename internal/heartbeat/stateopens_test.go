package heartbeat

import (
	"os"
	"path/filepath"
	"strings"
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
				got, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(statefile.Dir(f)), "*"))
				if err != nil || len(got) == 0 {
					t.Fatalf("%s after the first heartbeat: %v, %v; want its shards", f, got, err)
				}
				files = append(files, got...)
			}
			settled, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(statefile.Dir(node.QueueSettledFile)), "*"))
			if err != nil {
				t.Fatal(err)
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
			for _, f := range settled {
				if reads[f] > 1 {
					t.Errorf("%s read %d times, want once at most", f[len(dir):], reads[f])
				}
			}
		})
	}
}

// TestQuietPeersSeenHashesAreNotRead runs a heartbeat that finds nothing
// new and checks that no file of the cursors it reads holds a hash seen
// from a peer: a peer's seen hashes (90 days of them: 34 MB at 10,000
// agents) were in its cursor's file, read at every heartbeat. Then one
// peer publishes a trace and lists its first file again under a new seq:
// the heartbeat reads that peer's seen hashes only, and fetches the new
// trace but not the old bytes again.
func TestQuietPeersSeenHashesAreNotRead(t *testing.T) {
	mesh := newSimMesh(t, 4)
	dir := newNode(t, mesh.roster(), "")
	beat(t, dir, testNow)
	var hashes []string
	for _, p := range mesh.peers {
		// Its fingerprint, which a seen file keeps, and the start of the
		// whole hash.
		hashes = append(hashes, strings.TrimPrefix(string(p.m.Entries[0].Hash), "sha256:")[:16])
	}
	var mu sync.Mutex
	var read []string
	t.Cleanup(statefile.SetReadHook(func(p string) {
		if !strings.Contains(p, "polling-cursors") {
			return
		}
		data, _ := os.ReadFile(p)
		for _, h := range hashes {
			if strings.Contains(string(data), h) {
				mu.Lock()
				read = append(read, p[len(dir):])
				mu.Unlock()
				return
			}
		}
	}))
	if sum := beat(t, dir, testNow.Add(30*time.Minute)); sum.NewTraces != 0 {
		t.Fatalf("quiet heartbeat found %d new traces", sum.NewTraces)
	}
	if len(read) != 0 {
		t.Fatalf("a heartbeat that found nothing new read seen hashes in %v", read)
	}

	p := mesh.peers[0]
	first := p.m.Entries[0].File
	mesh.mu.Lock()
	p.add(string(p.files[first]), testNow) // the same bytes under a new seq
	p.add("# Second of p0\n\n## Work\n\nMore.\n", testNow)
	mesh.mu.Unlock()
	sum := beat(t, dir, testNow.Add(time.Hour))
	if sum.NewTraces != 1 {
		t.Fatalf("heartbeat with news: %d new traces, want 1", sum.NewTraces)
	}
	mesh.mu.Lock()
	defer mesh.mu.Unlock()
	if _, ok := p.fetched[p.m.Entries[1].File]; ok {
		t.Error("the bytes of a file already seen were fetched again under a new seq")
	}
	if _, ok := p.fetched[p.m.Entries[2].File]; !ok {
		t.Error("the new trace was not fetched")
	}
	if len(read) != 1 || !strings.Contains(read[0], filepath.Base(statefile.PeerPath(node.CursorsSeenFile, mesh.URL+"/p0/"))) {
		t.Errorf("seen hashes read from %v; want p0's file only", read)
	}
}

// TestQuietHeartbeatReadsNoSettledItem runs a heartbeat that finds
// nothing new after one that scored every peer's trace, and checks that
// no file of the queue it reads holds a settled item: a peer's settled
// items (a week of them: 39 MB at 10,000 agents) were in its file of the
// queue, read at every heartbeat. The summary still counts them.
func TestQuietHeartbeatReadsNoSettledItem(t *testing.T) {
	mesh := newSimMesh(t, 4)
	for _, p := range mesh.peers {
		p.m.Entries[0].Status = "pending"
		p.body = p.m.Format()
	}
	dir := newNode(t, mesh.roster(), "")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	if first := beat(t, dir, testNow); first.ValidationsPublished != len(mesh.peers) {
		t.Fatalf("first heartbeat published %d validations, want %d", first.ValidationsPublished, len(mesh.peers))
	}
	var mu sync.Mutex
	var read []string
	t.Cleanup(statefile.SetReadHook(func(p string) {
		if !strings.Contains(p, "queue") {
			return
		}
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), `"status": "done"`) {
			mu.Lock()
			read = append(read, p[len(dir):])
			mu.Unlock()
		}
	}))
	sum := beat(t, dir, testNow.Add(30*time.Minute))
	if sum.NewTraces != 0 {
		t.Fatalf("quiet heartbeat found %d new traces", sum.NewTraces)
	}
	if len(read) != 0 {
		t.Errorf("a heartbeat that found nothing new read settled items in %v", read)
	}
	if sum.QueueDepth["done"] != len(mesh.peers) {
		t.Errorf("queue depth %v, want the %d done items counted", sum.QueueDepth, len(mesh.peers))
	}
}

// TestHeartbeatWithNewsReadsEachSettledFileOnce: peers whose first trace
// was scored publish a second one, pending; the heartbeat queues and
// scores them, reading each peer's settled file (to keep a trace out of
// the queue twice, then to settle the new item) once, and the file of
// its queue once.
func TestHeartbeatWithNewsReadsEachSettledFileOnce(t *testing.T) {
	mesh, dir := scoredMesh(t, 4)
	settled, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(statefile.Dir(node.QueueSettledFile)), "*"))
	if err != nil || len(settled) == 0 {
		t.Fatalf("settled files after the first heartbeat: %v, %v", settled, err)
	}
	mesh.publishPending()
	var mu sync.Mutex
	reads := map[string]int{}
	t.Cleanup(statefile.SetReadHook(func(p string) {
		if strings.Contains(p, "queue") {
			mu.Lock()
			reads[p]++
			mu.Unlock()
		}
	}))
	sum := beat(t, dir, testNow.Add(30*time.Minute))
	if sum.ValidationsPublished != len(mesh.peers) {
		t.Fatalf("second heartbeat published %d validations, want %d", sum.ValidationsPublished, len(mesh.peers))
	}
	for _, f := range settled {
		if reads[f] != 1 {
			t.Errorf("%s read %d times, want once", f[len(dir):], reads[f])
		}
	}
	for f, n := range reads {
		if n > 1 {
			t.Errorf("%s read %d times, want once at most", f[len(dir):], n)
		}
	}
	if sum.QueueDepth["done"] != 2*len(mesh.peers) {
		t.Errorf("queue depth %v, want %d done", sum.QueueDepth, 2*len(mesh.peers))
	}
}
