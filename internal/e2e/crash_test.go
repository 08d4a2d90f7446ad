package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Environment of the heartbeat child process: the test binary re-executed
// runs one heartbeat of the node in dir at now and exits, so the crash
// tests can kill a real process between two of its writes, and a mesh of
// nodes can run as processes of their own. When envChildSummary names a
// file, the child writes its summary there as JSON, as `meshnode
// heartbeat --summary FILE` does.
const (
	envChildDir     = "E2E_HEARTBEAT_DIR"
	envChildNow     = "E2E_HEARTBEAT_NOW"
	envChildSummary = "E2E_HEARTBEAT_SUMMARY"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envChildDir); dir != "" {
		os.Exit(heartbeatChild(dir, os.Getenv(envChildNow), os.Getenv(envChildSummary)))
	}
	os.Exit(m.Run())
}

func heartbeatChild(dir, now, summary string) int {
	t, err := time.Parse(time.RFC3339, now)
	if err != nil {
		fmt.Fprintf(os.Stderr, "heartbeat child: %v\n", err)
		return 2
	}
	sum, err := runHeartbeat(dir, t)
	if err == nil && summary != "" {
		err = writeSummary(summary, sum)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "heartbeat child: %v\n", err)
		return 1
	}
	return 0
}

// crashScene is bob's node just before a heartbeat that does every kind of
// write: ada published three traces and a validation of bob's trace, cyd
// published a good trace and one whose bytes do not match its MANIFEST. So
// bob's heartbeat queues, claims, scores and finishes four traces, writes
// four validations and a dispute, a MANIFEST with a new status, the ledger
// and the cursors.
func crashScene(t *testing.T) (dir string, now time.Time) {
	t.Helper()
	m := newMesh(t, "ada", "bob", "cyd")
	m.configure("ada", founding)
	m.configure("bob", founding)
	bob := m.node("bob")
	bob.addTraces(t, "bob", "001-bob-intro.md")
	m.beat("bob") // publishes bob's trace; ada and cyd have published nothing yet
	ada := m.node("ada")
	ada.addTraces(t, "ada", adasTraces...)
	m.beat("ada") // publishes, validates bob's trace
	rubric := readTestdata(t, "traces/cyd/001-scoring-rubric.md")
	publishByHand(t, m.node("cyd"), "cyd", map[string]string{
		"traces/001-scoring-rubric.md": rubric,
		"traces/002-thin.md":           "# Note\n\ntampered\n",
	}, map[string]manifest.Hash{"traces/002-thin.md": hashOf(readTestdata(t, "traces/cyd/002-thin.md"))})
	return bob.dir, m.now.Add(heartbeatEvery)
}

// TestHeartbeatKilledBetweenAnyTwoWritesThenRerunEndsAsAnUninterruptedRun
// kills a real heartbeat process at every write and reruns it.
//
// How: the test binary re-executed (TestMain, envChildDir) runs exactly
// heartbeat.Run, which is all `meshnode heartbeat` does besides parsing its
// flags; re-executing it rather than building cmd/meshnode keeps this
// package independent of the CLI's build and costs no compile. The child
// runs under ptrace, which stops it at every syscall: every state write
// goes through atomicfile, which ends in a rename, so the k-th rename is
// the k-th write. An uninterrupted run counts the writes W; then for every
// k < W a fresh copy of the node runs until it enters rename k+1 and gets
// SIGKILL there (its temporary file written, not renamed: the worst
// instant), and a heartbeat at the same clock reruns on what is left. The
// rerun's files must equal the uninterrupted run's, byte for byte, and no
// temporary file may survive it. Peers are the same loopback servers
// throughout, serving the same bytes.
func TestHeartbeatKilledBetweenAnyTwoWritesThenRerunEndsAsAnUninterruptedRun(t *testing.T) {
	if !canKill {
		t.Skip("killing a process between two writes needs ptrace on linux/amd64")
	}
	scene, now := crashScene(t)
	ref := copyNode(t, scene)
	writes, killed, err := runKilledAfter(childHeartbeat(ref, now), -1)
	if err != nil || killed {
		t.Fatalf("uninterrupted heartbeat: killed=%v err=%v", killed, err)
	}
	if writes < 10 {
		t.Fatalf("the heartbeat made %d writes; the scene must exercise every kind (queue, validations, dispute, MANIFEST, ledger, cursors)", writes)
	}
	want := snapshot(t, ref)
	var leftovers []string
	for k := 0; k < writes; k++ {
		t.Run(fmt.Sprintf("killed after %d of %d writes", k, writes), func(t *testing.T) {
			dir := copyNode(t, scene)
			if _, killed, err := runKilledAfter(childHeartbeat(dir, now), k); err != nil || !killed {
				t.Fatalf("killed=%v err=%v", killed, err)
			}
			if _, err := runHeartbeat(dir, now); err != nil {
				t.Fatalf("rerun after the crash: %v", err)
			}
			got, tmp := splitTemporary(snapshot(t, dir))
			leftovers = append(leftovers, tmp...)
			if diff := diffSnapshots(want, got); len(diff) > 0 {
				t.Errorf("after the rerun the node differs from an uninterrupted run: %v", diff)
			}
		})
	}
	if len(leftovers) > 0 {
		t.Errorf("temporary files of killed writes survive the rerun (published as they are by any static host): %v", leftovers)
	}
}

// childHeartbeat is the command that runs one heartbeat of dir at now in a
// process of its own.
func childHeartbeat(dir string, now time.Time) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChildDir+"="+dir, envChildNow+"="+now.Format(time.RFC3339))
	cmd.Stderr = os.Stderr
	return cmd
}

// splitTemporary takes atomicfile's temporary files (".<name>.tmp-*") out
// of a snapshot and lists them.
func splitTemporary(snap map[string]string) (map[string]string, []string) {
	var tmp []string
	for f := range snap {
		if strings.HasPrefix(filepath.Base(f), ".") && strings.Contains(filepath.Base(f), ".tmp-") {
			tmp = append(tmp, f)
			delete(snap, f)
		}
	}
	return snap, tmp
}

// copyNode copies a node's directory into a new temporary one.
func copyNode(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	return dst
}
