package heartbeat

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/heartbeat/report"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestHeartbeatPastRetentionWritesNoQueueFile scores every peer's trace,
// then runs a heartbeat that finds nothing new once those settled items
// are past queue.SettledRetention: it writes no file of the queue, and
// still counts them. Before, such a heartbeat rewrote every peer's queue
// and settled files to drop them, a commit of thousands of files a day
// at 10,000 agents from a heartbeat that found nothing. The heartbeat
// with news after it drops them, with its own write, every peer's.
func TestHeartbeatPastRetentionWritesNoQueueFile(t *testing.T) {
	mesh := newSimMesh(t, 4)
	pending := func() {
		for _, p := range mesh.peers {
			p.m.Entries[len(p.m.Entries)-1].Status = "pending"
			p.body = p.m.Format()
		}
	}
	pending()
	dir := newNode(t, mesh.roster(), "")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	if first := beat(t, dir, testNow); first.ValidationsPublished != len(mesh.peers) {
		t.Fatalf("first heartbeat published %d validations, want %d", first.ValidationsPublished, len(mesh.peers))
	}
	queueFiles := func() map[string]string {
		out := map[string]string{}
		for _, f := range []string{node.QueueFile, node.QueueSettledFile} {
			d := filepath.Join(dir, filepath.FromSlash(statefile.Dir(f)))
			names, _ := filepath.Glob(filepath.Join(d, "*"))
			if len(names) == 0 {
				t.Fatalf("no files in %s", d)
			}
			for _, n := range names {
				data, err := os.ReadFile(n)
				if err != nil {
					t.Fatal(err)
				}
				out[n[len(dir):]] = string(data)
			}
		}
		return out
	}
	before := queueFiles()
	later := testNow.Add(queue.SettledRetention + 24*time.Hour)
	sum := beat(t, dir, later)
	if sum.NewTraces != 0 {
		t.Fatalf("the heartbeat past retention found %d new traces", sum.NewTraces)
	}
	if after := queueFiles(); !maps.Equal(before, after) {
		t.Errorf("a heartbeat that found nothing new changed the queue's files: %d before, %d after", len(before), len(after))
	}
	if sum.QueueDepth["done"] != len(mesh.peers) {
		t.Errorf("queue depth %v, want the %d done items counted until a write drops them", sum.QueueDepth, len(mesh.peers))
	}

	for i := range mesh.peers {
		mesh.publish(i, 1)
	}
	mesh.mu.Lock()
	pending()
	mesh.mu.Unlock()
	// Peers quiet for a week are polled again within a day, each at its
	// own time.
	var news *report.Summary
	for at := later.Add(30 * time.Minute); at.Before(later.Add(48 * time.Hour)); at = at.Add(30 * time.Minute) {
		if news = beat(t, dir, at); news.ValidationsPublished > 0 {
			break
		}
	}
	if news.ValidationsPublished == 0 {
		t.Fatalf("the heartbeat with news published no validation: %+v", news)
	}
	if news.QueueDepth["done"] != news.ValidationsPublished {
		t.Errorf("queue depth after news %v, want only the %d new items done: its write drops every peer's old ones", news.QueueDepth, news.ValidationsPublished)
	}
}
