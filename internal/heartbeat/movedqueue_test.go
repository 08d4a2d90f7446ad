package heartbeat

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestAMovedAgentsWaitingTraceIsValidatedAtItsNewURL: alice's pending
// trace waits in the queue under her old URL (the node has no standing
// yet) when a person moves her to a new URL in AGENTS.md. Her records
// follow her (adoptMoved), so the item no longer names the peer the
// ledger says lists the trace, and it is dropped (listedByItsPeer). Her
// row is seen already, so nothing else would queue the trace again: it
// went without our vote. It is queued again from the ledger's record,
// under the new URL, and our validation names the file at the new URL.
func TestAMovedAgentsWaitingTraceIsValidatedAtItsNewURL(t *testing.T) {
	m := newMovingAgent(t)
	dir := newNode(t, [][2]string{{"gamma", m.url("/gamma/")}, {"alice", m.url("/old/")}}, "")
	beat(t, dir, testNow) // queues alice's trace; no standing, so it waits
	body := "# Alice's work\n\n## Work\n\nMeasured once.\n"
	h := manifest.HashBytes([]byte(body))
	if it := queuedItem(t, dir, h); it == nil || it.FromURL != m.url("/old/") {
		t.Fatalf("setup: alice's trace is queued as %+v", it)
	}

	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"gamma", m.url("/gamma/")}, [2]string{"alice", m.url("/new/")})))
	beat(t, dir, testNow.Add(cursorStep)) // the move
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	beat(t, dir, testNow.Add(2*cursorStep)) // standing: the old item is dropped, the trace queued again
	beat(t, dir, testNow.Add(3*cursorStep)) // and scored

	data, err := os.ReadFile(filepath.Join(dir, node.ValidationsDir, validation.FileName(h)))
	if err != nil {
		t.Fatalf("alice's trace was never validated: %v", err)
	}
	v, err := validation.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := m.url("/new/traces/001-work.md"); v.TraceURL != want {
		t.Errorf("our validation names %s, want alice's file at her new URL %s", v.TraceURL, want)
	}
}

// queuedItem is the queue's item of the trace h in the node at dir, nil
// when it has none.
func queuedItem(t *testing.T, dir string, h manifest.Hash) *queue.Item {
	t.Helper()
	items, err := queue.Open(filepath.Join(dir, node.QueueFile)).List()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Hash == h {
			return &it
		}
	}
	return nil
}
