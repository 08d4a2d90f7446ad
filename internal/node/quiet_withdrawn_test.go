package node_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// TestAQuietManualNodeReadsNoHistoryForAWithdrawnTracesItem: with the
// manual scorer, an item whose own peer withdrew its trace gets no
// suggestion and waits, queued (docs/decisions.md, "Names"). An item
// without a suggestion made every heartbeat read the history to suggest
// one, so while it waited every heartbeat of the node read the history,
// quiet or not. Now the heartbeat with news that finds the trace
// withdrawn notes the item (queue.WaitWithdrawn) and the quiet heartbeats
// after it read no history and commit nothing; the heartbeat with news
// that finds the trace listed again suggests its scores.
func TestAQuietManualNodeReadsNoHistoryForAWithdrawnTracesItem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := newQuietPeer(t)
	dir := newNode(t, p.base)
	writeText(t, dir, node.ConfigFile, "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\nscorer: manual\n")
	writeText(t, dir, node.FoundersFile, "someone | http://127.0.0.1:1/someone/\n") // no standing: ada's trace waits unsuggested
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	mustBeat(t, dir, now)
	if it := adaItem(t, dir); it.Status != queue.StatusQueued || it.Suggested != nil {
		t.Fatalf("setup: ada's item is %s, suggested %v; want queued without a suggestion", it.Status, it.Suggested != nil)
	}
	gitCommit(t, dir)

	row := p.listRow(0, "") // ada withdraws its trace
	writeText(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	gitCommit(t, dir)
	mustBeat(t, dir, now.Add(20*time.Minute)) // with news, and MANIFEST.md's refresh due (75 minutes)
	gitCommit(t, dir)

	quiet, reads := beatCounting(t, dir, now.Add(time.Hour))
	if quiet.err != nil {
		t.Fatal(quiet.err)
	}
	if reads[node.LedgerFile] != 0 {
		t.Errorf("a quiet heartbeat read the history (the ledger %d times) for an item whose peer withdrew its trace", reads[node.LedgerFile])
	}
	if quiet.sum.Changed {
		t.Error("a quiet heartbeat changed files")
	}
	if out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--", ".", ":(exclude,glob)mesh-state/*.lock").Output(); err != nil || len(out) > 0 {
		t.Errorf("a quiet heartbeat left to commit: %s %v", out, err)
	}
	if it := adaItem(t, dir); it.Status != queue.StatusQueued || it.Suggested != nil {
		t.Fatalf("the withdrawn trace's item is %s, suggested %v; want queued without a suggestion", it.Status, it.Suggested != nil)
	}

	p.listRow(0, row) // listed again
	mustBeat(t, dir, now.Add(2*time.Hour))
	if it := adaItem(t, dir); it.Status != queue.StatusQueued || it.Suggested == nil || it.Reason != "" {
		t.Errorf("listed again, ada's item is %s, suggested %v, reason %q; want queued with a suggestion, no reason",
			it.Status, it.Suggested != nil, it.Reason)
	}
}

// listRow sets p's i-th row of MANIFEST.md (empty: none, the trace
// withdrawn, the sequence unchanged) and returns the row it replaced.
func (p *quietPeer) listRow(i int, row string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.rows[i]
	p.rows[i] = row
	return old
}

// adaItem returns the one item of dir's queue.
func adaItem(t *testing.T, dir string) queue.Item {
	t.Helper()
	items, err := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile))).List()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 {
		t.Fatalf("queue holds %d items, want ada's one", len(items))
	}
	return items[0]
}
