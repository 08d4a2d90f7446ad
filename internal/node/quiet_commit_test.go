package node_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/gitpush"
	"github.com/meshnode/meshnode/internal/node"
)

// TestQuietHeartbeatAfterNewsCommitsNothing runs the heartbeat as the
// workflow does: a heartbeat with news in a checkout of a remote, its
// commit pushed (gitpush, as `meshnode commit --push`), then, in a fresh
// clone (a runner's checkout), a heartbeat that finds nothing new. That
// one must read no history and leave nothing to commit: the derived state
// the heartbeat with news kept digests the work tree it left, which the
// commit records as is. Before, it digested HEAD's tree, which the commit
// had yet to make, so the first quiet heartbeat after news computed in
// full and committed mesh-state/derived.json.
func TestQuietHeartbeatAfterNewsCommitsNothing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	p := newQuietPeer(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitRun(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	dir := newNode(t, p.base)
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitCommit(t, dir)
	gitRun(t, dir, "remote", "add", "origin", remote)
	gitRun(t, dir, "push", "-q", "origin", "main")

	if sum := mustBeat(t, dir, now); sum.ValidationsPublished != 1 {
		t.Fatalf("heartbeat with news published %d validations, want 1", sum.ValidationsPublished)
	}
	if res := commitAndPush(ctx, t, dir); !res.Pushed {
		t.Fatalf("the heartbeat with news pushed nothing: %+v", res)
	}
	runner := filepath.Join(t.TempDir(), "runner")
	gitRun(t, filepath.Dir(runner), "clone", "-q", remote, runner)
	restoreCache(t, dir, runner)

	at := now.Add(30 * time.Minute)
	full := fullCopy(t, runner)
	quiet, reads := beatCounting(t, runner, at)
	if quiet.err != nil {
		t.Fatal(quiet.err)
	}
	if reads[node.LedgerFile] > 0 {
		t.Errorf("the heartbeat that found nothing new read the history: %v", reads)
	}
	if quiet.sum.Changed {
		t.Error("the heartbeat that found nothing new changed files")
	}
	if out, err := exec.Command("git", "-C", runner, "status", "--porcelain", "--", ".", ":(exclude,glob)mesh-state/*.lock", ":(exclude)mesh-state/copies").Output(); err != nil || len(out) > 0 {
		t.Errorf("the heartbeat that found nothing new left to commit: %q %v", out, err)
	}
	if res := commitAndPush(ctx, t, runner); res.Committed {
		t.Errorf("the heartbeat that found nothing new committed %q", res.Message)
	}
	wantSame(t, runner, full, quiet, at)
}

// commitAndPush commits the node's files and pushes them to origin's
// main, as the workflow's step "Commit and push" does.
func commitAndPush(ctx context.Context, t *testing.T, dir string) gitpush.Result {
	t.Helper()
	res, err := gitpush.CommitAndPush(ctx, gitpush.Options{Dir: dir, Push: true, Branch: "main",
		AuthorName: "t", AuthorEmail: "t@t", Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatalf("commit and push: %v", err)
	}
	return res
}

// TestQuietHeartbeatInAnUncommittedCheckout runs, in a checkout whose
// heartbeats are never committed (`meshnode watch` without commits), a
// heartbeat with news and then one that finds nothing new: the second
// reads no history, since the work tree is the one the first left.
func TestQuietHeartbeatInAnUncommittedCheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := newQuietPeer(t)
	dir := newNode(t, p.base)
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	if sum := mustBeat(t, dir, now); sum.ValidationsPublished != 1 {
		t.Fatalf("heartbeat with news published %d validations, want 1", sum.ValidationsPublished)
	}
	at := now.Add(30 * time.Minute)
	full := fullCopy(t, dir)
	quiet, reads := beatCounting(t, dir, at)
	if quiet.err != nil {
		t.Fatal(quiet.err)
	}
	if reads[node.LedgerFile] > 0 {
		t.Errorf("the heartbeat that found nothing new read the history: %v", reads)
	}
	wantSame(t, dir, full, quiet, at)
}
