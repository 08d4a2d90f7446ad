package heartbeat

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
)

// TestMisreadAndTheCopiesAreComputedOnceForEachStateOfTheLedger: a
// heartbeat with news reads the peers to read again twice (before it
// polls, and for its derived record) and the copies' selection three
// times (to keep them, to backfill them, for its derived record), each a
// pass over every record of the history. One that changes no record in
// between computes each once; the first heartbeat, which records the
// peer's files, computes misread again after its changes.
func TestMisreadAndTheCopiesAreComputedOnceForEachStateOfTheLedger(t *testing.T) {
	dir := committedNodeOfOnePeer(t)
	var misreads, selections int
	computingMisread, selectingCopies = func() { misreads++ }, func() { selections++ }
	defer func() { computingMisread, selectingCopies = nil, nil }()

	beat(t, dir, testNow)
	if misreads != 2 {
		t.Fatalf("first heartbeat: misread computed %d times; want 2 (before and after its records)", misreads)
	}
	gitCommitAll(t, dir)
	// Without its derived record the next heartbeat loads the history and
	// saves as one with news does, though its peer has nothing new.
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(node.DerivedFile))); err != nil {
		t.Fatal(err)
	}
	misreads, selections = 0, 0
	beat(t, dir, testNow.Add(30*time.Minute))
	if misreads != 1 || selections != 1 {
		t.Errorf("heartbeat that changed no record: misread computed %d times, the copies selected %d; want 1 and 1", misreads, selections)
	}
	if _, err := readDerived(dir); err != nil {
		t.Errorf("derived record: %v", err)
	}
}

// committedNodeOfOnePeer is a node of one good peer, committed to a new
// git repository; the test is skipped where git is missing.
func committedNodeOfOnePeer(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	good := goodPeer(t)
	t.Cleanup(good.Close)
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	gitCommitAll(t, dir)
	return dir
}

// gitCommitAll commits every file of dir, making it a repository first.
func gitCommitAll(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c", "--allow-empty"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}
