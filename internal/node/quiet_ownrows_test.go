package node_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// laterTrace is a trace of ours that ada passes before we publish it.
const laterTrace = "# Our later trace\n\n**Type:** knowledge\n\n## Work\n\nRetries measured on 300 runs.\n\n## Evidence\n\nRun 7.\n"

// TestOwnRowPublishedAfterItsPassesIsNotLeftPending: ada, the founder,
// passes a trace of ours before we publish it (heartbeat A records the
// pass); heartbeat B publishes the trace; heartbeat C finds nothing new
// and uses B's derived record. A row's status is a function of the
// public files, and the files after B decide it: validated. Before, B
// resolved our statuses from the rows it started with, so the new row
// was written pending, and C, quiet, carried it so until news: C's
// MANIFEST.md differed from a node's computing from the whole history.
func TestOwnRowPublishedAfterItsPassesIsNotLeftPending(t *testing.T) {
	dir := passedBeforePublished(t)
	mustBeat(t, dir, now.Add(time.Hour)) // B: publishes laterTrace
	if got := ownRowStatus(t, dir, "traces/later.md"); got != manifest.StatusValidated {
		t.Errorf("the heartbeat that published our trace passed by ada wrote it %q; want validated", got)
	}
	gitCommit(t, dir)
	at := now.Add(90 * time.Minute)
	full := fullCopy(t, dir)
	quiet, _ := beatReadingNoHistory(t, dir, at, "C, a heartbeat that finds nothing new")
	wantSame(t, dir, full, quiet, at)
	if got := ownRowStatus(t, dir, "traces/later.md"); got != manifest.StatusValidated {
		t.Errorf("after a quiet heartbeat our trace passed by ada is %q; want validated", got)
	}
}

// passedBeforePublished is a node of tester, in a git checkout, whose
// mesh's founder is ada, after heartbeat A: ada's pass of laterTrace,
// which tester has not published yet, is in its ledger; committed.
// laterTrace is then written into traces/, uncommitted.
func passedBeforePublished(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := newQuietPeer(t)
	dir := newNode(t, p.base)
	writeText(t, dir, node.ConfigFile, "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\nscorer: manual\n")
	writeText(t, dir, node.FoundersFile, "ada | "+p.base+"\n")
	gitRun(t, dir, "init", "-q")
	gitCommit(t, dir)
	p.publish("validations/val-later.md", passOf(p, "traces/later.md", laterTrace, now.Add(-time.Hour)))
	mustBeat(t, dir, now) // A
	gitCommit(t, dir)
	writeText(t, dir, "traces/later.md", laterTrace)
	return dir
}

// passOf is ada's pass of our trace body at file, dated at.
func passOf(p *quietPeer, file, body string, at time.Time) string {
	return fmt.Sprintf("# VALIDATION\n\nvalidator: ada\nvalidator_url: %s\ntrace_url: http://127.0.0.1:1/tester/%s\ntrace_hash: %s\nvalidated_at: %s\n"+
		"result: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
		p.base, file, manifest.HashBytes([]byte(body)), at.Format(time.RFC3339))
}

// ownRowStatus is the status of file's row in the node's MANIFEST.md.
func ownRowStatus(t *testing.T, dir, file string) manifest.Status {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, node.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := manifest.ParseOwn(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Entries {
		if e.File == file {
			return e.Status
		}
	}
	t.Fatalf("no row of %s in MANIFEST.md:\n%s", file, strings.TrimSpace(string(data)))
	return ""
}
