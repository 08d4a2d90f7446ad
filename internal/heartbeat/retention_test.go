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
	mesh, dir := scoredMesh(t, 4)
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

	mesh.publishPending()
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

// scoredMesh is a mesh of n peers and a node with standing polling it,
// after the heartbeat that scored and published each peer's last trace,
// pending.
func scoredMesh(t *testing.T, n int) (*simMesh, string) {
	t.Helper()
	mesh := newSimMesh(t, n)
	mesh.lastPending()
	dir := newNode(t, mesh.roster(), "")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	if first := beat(t, dir, testNow); first.ValidationsPublished != n {
		t.Fatalf("first heartbeat published %d validations, want %d", first.ValidationsPublished, n)
	}
	return mesh, dir
}
