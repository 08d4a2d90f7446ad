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
	p, dir, row := withdrawnTraceNode(t, "manual")
	gitCommit(t, dir)
	wantQuietBeat(t, dir, now.Add(time.Hour))
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

// TestAQuietManualNodeTriesAFailedFetchAgainOnlyWhenDue: with the manual
// scorer, an item whose trace failed to fetch again gets no suggestion
// and made every heartbeat read the history and fetch the trace again,
// quiet or not. Now it is noted (queue.WaitFetchFailed), and a heartbeat
// without news reads the history to try again only once the note is
// suggestRetry (6 hours) old: a try that fails notes it again, and one
// that fetches the trace suggests its scores.
func TestAQuietManualNodeTriesAFailedFetchAgainOnlyWhenDue(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := newQuietPeer(t)
	dir := manualNode(t, p)
	body := p.serveFile("traces/retry.md", "") // ada's trace fails to fetch
	standing(t, dir)
	mustBeat(t, dir, now.Add(20*time.Minute)) // reads the history: FOUNDERS.md changed
	gitCommit(t, dir)
	for _, st := range []struct {
		at      time.Duration
		tried   bool
		served  bool
		suggest bool
	}{
		{time.Hour, false, false, false},                   // the note is 40 minutes old
		{6*time.Hour + 30*time.Minute, true, false, false}, // 6 hours 10 minutes: tried, failed, noted again
		{7 * time.Hour, false, false, false},               // the new note is 30 minutes old
		{13 * time.Hour, true, true, true},                 // tried again, fetched, suggested
	} {
		if st.served {
			p.serveFile("traces/retry.md", body)
		}
		at := now.Add(st.at)
		got, reads := beatCounting(t, dir, at)
		if got.err != nil {
			t.Fatal(got.err)
		}
		it := adaItem(t, dir)
		if tried := reads[node.LedgerFile] > 0; tried != st.tried || (it.Suggested != nil) != st.suggest {
			t.Fatalf("%v after the note: read the history %v, suggested %v; want %v and %v", st.at-20*time.Minute, tried, it.Suggested != nil, st.tried, st.suggest)
		}
		want := queue.WaitFetchFailed
		if st.suggest {
			want = ""
		}
		if it.Reason != want || (st.tried && !st.suggest && !it.UpdatedAt.Equal(at)) {
			t.Errorf("%v after the note: reason %q, updated %v; want %q", st.at-20*time.Minute, it.Reason, it.UpdatedAt, want)
		}
		gitCommit(t, dir)
	}
}

// manualNode is a node in a git checkout, its scorer manual and without
// standing, polling p, after a heartbeat that queued p's trace, which
// waits without a suggestion.
func manualNode(t *testing.T, p *quietPeer) string {
	t.Helper()
	return waitingNode(t, p, "manual")
}

// waitingNode is a node in a git checkout with the scorer named and
// without standing, polling p, after a heartbeat that queued p's trace,
// which waits, unscored and without a suggestion.
func waitingNode(t *testing.T, p *quietPeer, scorer string) string {
	t.Helper()
	dir := newNode(t, p.base)
	writeText(t, dir, node.ConfigFile, "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\nscorer: "+scorer+"\n")
	writeText(t, dir, node.FoundersFile, "someone | http://127.0.0.1:1/someone/\n")
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	mustBeat(t, dir, now)
	if it := adaItem(t, dir); it.Status != queue.StatusQueued || it.Suggested != nil {
		t.Fatalf("setup: ada's item is %s, suggested %v; want queued without a suggestion", it.Status, it.Suggested != nil)
	}
	gitCommit(t, dir)
	return dir
}

// withdrawnTraceNode is a waitingNode with the scorer named whose peer p
// then withdrew its trace (row, the row it listed), after the heartbeat
// with news that found the trace withdrawn, the node's standing given and
// MANIFEST.md's refresh due (75 minutes), not yet committed.
func withdrawnTraceNode(t *testing.T, scorer string) (p *quietPeer, dir, row string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p = newQuietPeer(t)
	dir = waitingNode(t, p, scorer)
	row = p.listRow(0, "") // ada withdraws its trace before it is scored
	standing(t, dir)
	mustBeat(t, dir, now.Add(20*time.Minute))
	return p, dir, row
}

// wantQuietBeat runs a heartbeat at at on dir, committed, whose item waits
// for its withdrawn trace, and fails the test unless it reads no history,
// changes no file and leaves nothing to commit.
func wantQuietBeat(t *testing.T, dir string, at time.Time) {
	t.Helper()
	quiet, reads := beatCounting(t, dir, at)
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
}

// standing makes the node at dir a founder, committed: its next
// heartbeat suggests scores.
func standing(t *testing.T, dir string) {
	t.Helper()
	writeText(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	gitCommit(t, dir)
}

// serveFile sets the body p serves for file (empty: none, a 404) and
// returns the one it served.
func (p *quietPeer) serveFile(file, body string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.files[file]
	if body == "" {
		delete(p.files, file)
	} else {
		p.files[file] = body
	}
	return old
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
