package node_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// TestAQuietNodeWithoutStandingLoadsNoHistoryForAWorkersResult: a worker
// stored its result for ada's trace on a node without standing (ada, the
// founder, passed four of its five capability rocks, in passes dated
// ahead of the clock: SIGNAL 40). Every heartbeat of such a node loaded
// the whole history to find again that it has no standing, news or not.
// Now one that finds nothing new reads no history, publishes nothing,
// commits nothing, and gives what a heartbeat computing from the whole
// history gives; so do those a UTC day later (another epoch) and three
// days later (past the day ada's passes are dated): standing comes and
// goes with the files alone (docs/decisions.md, "Names": "A worker's
// result waiting for standing, quietly").
func TestAQuietNodeWithoutStandingLoadsNoHistoryForAWorkersResult(t *testing.T) {
	_, dir := standingResultNode(t)
	for i, at := range []time.Time{now.Add(time.Hour), now.Add(25 * time.Hour), now.Add(72 * time.Hour)} {
		t.Run(at.Format(time.RFC3339), func(t *testing.T) {
			run, full := nodeCopy(t, dir), fullCopy(t, dir)
			quiet, reads := beatCounting(t, run, at)
			if quiet.err != nil {
				t.Fatal(quiet.err)
			}
			if reads[node.LedgerFile] != 0 {
				t.Errorf("a quiet heartbeat without standing read the history (the ledger %d times) for a worker's result", reads[node.LedgerFile])
			}
			if quiet.sum.ValidationsPublished != 0 || !strings.HasPrefix(quiet.sum.Standing, "no standing yet: SIGNAL 40 ") {
				t.Errorf("a quiet heartbeat published %d validations, standing %q; want none, SIGNAL 40", quiet.sum.ValidationsPublished, quiet.sum.Standing)
			}
			wantWaiting(t, run)
			if i == 0 { // before our MANIFEST.md's presence refresh is due
				if out, err := exec.Command("git", "-C", run, "status", "--porcelain", "--", ".", ":(exclude,glob)mesh-state/*.lock").Output(); err != nil || len(out) > 0 || quiet.sum.Changed {
					t.Errorf("a quiet heartbeat changed files (%v), left to commit: %s %v", quiet.sum.Changed, out, err)
				}
			}
			wantSame(t, run, full, quiet, at)
		})
	}
}

// TestAWorkersResultWaitingForStandingIsPublishedAtTheNewsThatBringsIt:
// the result a quiet heartbeat left waiting for standing is published,
// and marked, by the heartbeat whose news is ada's fifth pass (dated a
// day ahead: it counts at once), which brings the node's SIGNAL to 50.
func TestAWorkersResultWaitingForStandingIsPublishedAtTheNewsThatBringsIt(t *testing.T) {
	p, dir := standingResultNode(t)
	mustBeat(t, dir, now.Add(time.Hour)) // quiet
	wantWaiting(t, dir)
	p.publish("validations/val-rock5.md", rockPass(p, 5, now.Add(26*time.Hour)))
	sum := mustBeat(t, dir, now.Add(2*time.Hour))
	if sum.ValidationsPublished != 1 || !strings.HasPrefix(sum.Standing, "standing: SIGNAL 50") {
		t.Errorf("the heartbeat whose news brought standing published %d validations, standing %q; want the worker's result, SIGNAL 50",
			sum.ValidationsPublished, sum.Standing)
	}
	if it := queueItem(t, dir, manifest.HashBytes([]byte(peerTrace))); it.Result == nil || it.Result.PublishedAt.IsZero() {
		t.Errorf("with standing, the worker's result is not marked published: %+v", it.Result)
	}
}

// TestAQuietNodeWithStandingPublishesAWorkersResultStoredSinceItsRecord:
// once the node has standing, its derived record says so, and a result a
// worker stores after it is published by the next heartbeat, news or
// not, as before: it loads the history to publish it.
func TestAQuietNodeWithStandingPublishesAWorkersResultStoredSinceItsRecord(t *testing.T) {
	p, dir := standingResultNode(t)
	p.publish("validations/val-rock5.md", rockPass(p, 5, now.Add(26*time.Hour)))
	p.publish("traces/other.md", otherTrace)
	if sum := mustBeat(t, dir, now.Add(time.Hour)); sum.ValidationsPublished != 1 {
		t.Fatalf("setup: the heartbeat that brought standing published %d validations, want the first result", sum.ValidationsPublished)
	}
	gitCommit(t, dir)
	other := manifest.HashBytes([]byte(otherTrace))
	q := workerQueue(dir, now.Add(70*time.Minute))
	if got, err := q.Claim(queue.Claim{Owner: "worker", Now: now.Add(70 * time.Minute), Lease: 24 * time.Hour}); err != nil || len(got) != 1 || got[0].Hash != other {
		t.Fatalf("setup: the worker claimed %v, %v; want ada's other trace", got, err)
	}
	finishAsWorker(t, dir, other, now.Add(75*time.Minute))
	gitCommit(t, dir)
	sum, reads := beatCounting(t, dir, now.Add(2*time.Hour))
	if sum.err != nil {
		t.Fatal(sum.err)
	}
	if reads[node.LedgerFile] == 0 || sum.sum.ValidationsPublished != 1 {
		t.Errorf("a heartbeat with standing read the ledger %d times and published %d validations; want it read, and the result published",
			reads[node.LedgerFile], sum.sum.ValidationsPublished)
	}
	if it := queueItem(t, dir, other); it.Result == nil || it.Result.PublishedAt.IsZero() {
		t.Errorf("the result stored since the record is not marked published: %+v", it.Result)
	}
}

// standingResultNode is a node in a git checkout, its scorer manual,
// without standing: ada, the mesh's founder (mesh-2026-1), passed four of
// its five capability rocks, in passes dated a day ahead, which a
// heartbeat read after the one that published the rocks and queued ada's
// trace, and kept its derived record; a worker then claimed the item and
// stored its result; committed. It returns the peer
// and the node.
func standingResultNode(t *testing.T) (*quietPeer, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := newQuietPeer(t)
	dir := newNode(t, p.base)
	writeText(t, dir, node.ConfigFile, "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\nscorer: manual\n")
	writeText(t, dir, node.FoundersFile, "ada | "+p.base+"\n")
	for i := 1; i <= 5; i++ {
		writeText(t, dir, rockFile(i), rockTrace(i))
	}
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	if sum := mustBeat(t, dir, now.Add(-30*time.Minute)); sum.Queued != 1 {
		t.Fatalf("setup: the first heartbeat queued %d; want ada's trace", sum.Queued)
	}
	gitCommit(t, dir)
	for i := 1; i <= 4; i++ {
		p.publish(fmt.Sprintf("validations/val-rock%d.md", i), rockPass(p, i, now.Add(24*time.Hour)))
	}
	if sum := mustBeat(t, dir, now); !strings.HasPrefix(sum.Standing, "no standing yet: SIGNAL 40 ") {
		t.Fatalf("setup: after ada's four passes, standing %q; want SIGNAL 40", sum.Standing)
	}
	gitCommit(t, dir)
	q := workerQueue(dir, now.Add(time.Minute))
	if got, err := q.Claim(queue.Claim{Owner: "worker", Now: now.Add(time.Minute), Lease: 24 * time.Hour}); err != nil || len(got) != 1 {
		t.Fatalf("setup: the worker claimed %d items, %v; want ada's one", len(got), err)
	}
	finishAsWorker(t, dir, manifest.HashBytes([]byte(peerTrace)), now.Add(2*time.Minute))
	gitCommit(t, dir)
	return p, dir
}

// rockFile is the file of our i-th capability rock.
func rockFile(i int) string { return fmt.Sprintf("traces/rock-%d.md", i) }

// rockTrace is our i-th capability rock: one that an agent with standing
// passes earns 10 of the 50 SIGNAL standing needs.
func rockTrace(i int) string {
	return fmt.Sprintf("# Tool number %d\n\n**Type:** capability\n**Category:** rock\n\n## Work\n\nTool %d, measured on 1,200 runs.\n\n## Evidence\n\nRun %d.\n", i, i, i)
}

// rockPass is ada's pass of our i-th rock, dated at.
func rockPass(p *quietPeer, i int, at time.Time) string {
	return fmt.Sprintf("# VALIDATION\n\nvalidator: ada\nvalidator_url: %s\ntrace_url: http://127.0.0.1:1/tester/%s\ntrace_hash: %s\nvalidated_at: %s\n"+
		"result: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
		p.base, rockFile(i), manifest.HashBytes([]byte(rockTrace(i))), at.Format(time.RFC3339))
}

// wantWaiting fails unless the worker's result for ada's trace waits,
// done and unpublished, with no validation of it.
func wantWaiting(t *testing.T, dir string) {
	t.Helper()
	wantHeld(t, dir, manifest.HashBytes([]byte(peerTrace)))
}

// nodeCopy copies the node, git checkout and derived state included, so
// that each heartbeat of a test starts from the same node.
func nodeCopy(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "node")
	if out, err := exec.Command("cp", "-a", dir, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return dst
}
