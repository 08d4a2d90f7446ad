package heartbeat

import (
	"bytes"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestPublishingAnotherTraceOfOursComputesSignalOnce: a heartbeat that
// publishes a trace of ours when SIGNAL already holds us (a trace of ours
// published before), and no file names the new one, extends the report it
// took for standing with the new row's result (signal.Extend) rather than
// compute SIGNAL again over its planned rows: once in all, the derived
// record included, and the row is written pending. It collects after
// extending as after computing.
func TestPublishingAnotherTraceOfOursComputesSignalOnce(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git") // the derived record digests the history with git
	}
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "scorer: manual\n")
	write(t, dir, node.FoundersFile, "good | "+good.URL+"/\n")
	addOwnTraces(t, dir, 0, 1)
	gitCommit(t, dir)
	beat(t, dir, testNow)
	if d, err := readDerived(dir); err != nil || d == nil {
		t.Fatalf("setup: no derived record: %v", err)
	}
	addOwnTraces(t, dir, 1, 2)
	computed, points := 0, []string(nil)
	computingSignal, collected = func() { computed++ }, func(p string) { points = append(points, p) }
	defer func() { computingSignal, collected = nil, nil }()
	sum := beat(t, dir, testNow.Add(30*time.Minute))
	if sum.TracesPublished != 1 || computed != 1 {
		t.Errorf("a heartbeat publishing our second trace: %d traces published, SIGNAL computed %d times; want 1 and 1", sum.TracesPublished, computed)
	}
	// The extended report is collected after as a computed one is, so
	// that the heap's goal for the rest of the heartbeat is set from what
	// it goes on holding.
	if want := []string{collectLoaded, collectGathered, collectComputed, collectComputed}; !slices.Equal(points, want) {
		t.Errorf("collected at %q; want %q", points, want)
	}
	h := manifest.HashBytes([]byte(traceFile(1001)))
	for _, e := range ownManifest(t, dir).Entries {
		if e.Hash == h && e.Status != manifest.StatusPending {
			t.Errorf("our new row is %s, want pending", e.Status)
		}
	}
	if d, err := readDerived(dir); err != nil || d == nil {
		t.Errorf("no derived record after publishing: %v", err)
	}
}

// gitCommit makes dir a git repository with everything in it committed.
func gitCommit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}

// TestExtendingSignalChangesNoFileAHeartbeatWrites: two nodes polling the
// same mesh under mesh-2026-3 through the same heartbeats, one computing
// SIGNAL over its planned rows every time (extendingNever), write the
// same bytes to every file: through a heartbeat that publishes a trace
// of ours nothing names (the other node extends its report), one whose
// new trace a founder passed before its row (the rule refuses: it
// computes again, and the row is validated) and a later one.
func TestExtendingSignalChangesNoFileAHeartbeatWrites(t *testing.T) {
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	ms, srv, _, peers, founders := newFoundersMesh(t, "mesh-2026-3")
	ms.publish("ada", "traces/001.md", "knowledge", "# Ada's note\n\n## Work\n\nDone.\n", day)
	dirs := [2]string{}
	for i := range dirs {
		dirs[i] = newNode(t, peers, "polling:\n  quiet_after: 0\n")
		write(t, dirs[i], node.FoundersFile, founders)
		addOwnTraces(t, dirs[i], 0, 2)
	}
	var computed [2]int
	beatBoth := func(at time.Time, own int) {
		for i, dir := range dirs {
			if own > 0 {
				addOwnTraces(t, dir, own, own+1)
			}
			extendingNever = i == 1
			computingSignal = func() { computed[i]++ }
			beat(t, dir, at)
		}
		extendingNever, computingSignal = false, nil
		sameFiles(t, at.Sub(day), dirs[0], dirs[1])
	}
	beatBoth(day.Add(time.Hour), 0)
	computed = [2]int{}
	beatBoth(day.Add(2*time.Hour), 2)
	if computed[0] != computed[1]-1 {
		t.Errorf("publishing a trace nothing names: SIGNAL computed %d times, %d when computing over the planned rows; want one less",
			computed[0], computed[1])
	}
	passed := manifest.HashBytes([]byte(traceFile(1003)))
	ms.publish("f1", "validations/val-tester.md", "validation", fmt.Sprintf(
		"# VALIDATION\n\nvalidator: f1\nvalidator_url: %s/f1/\ntrace_url: http://127.0.0.1:1/tester/traces/t003.md\ntrace_hash: %s\nvalidated_at: %s\nresult: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
		srv.URL, passed, day.Add(2*time.Hour).Format(time.RFC3339)), day.Add(2*time.Hour))
	computed = [2]int{}
	beatBoth(day.Add(3*time.Hour), 3)
	if computed[0] != computed[1] {
		t.Errorf("publishing a trace a founder passed: SIGNAL computed %d times, %d when computing over the planned rows; want the same",
			computed[0], computed[1])
	}
	beatBoth(day.Add(27*time.Hour), 4)
	for _, e := range ownManifest(t, dirs[0]).Entries {
		if e.Hash == passed && e.Status != manifest.StatusValidated {
			t.Errorf("our trace passed before its row is %s, want validated", e.Status)
		}
	}
}

// sameFiles says where the files of dir, whose node extends SIGNAL's
// report, differ from those of again, whose node computes it again,
// after the heartbeat at +after.
func sameFiles(t *testing.T, after time.Duration, dir, again string) {
	t.Helper()
	extended, computedAgain := filesUnder(t, dir), filesUnder(t, again)
	if len(extended) < 10 {
		t.Fatalf("setup: the node holds %d files", len(extended))
	}
	for _, name := range slices.Sorted(maps.Keys(computedAgain)) {
		if got, ok := extended[name]; !ok || !bytes.Equal(got, computedAgain[name]) {
			t.Errorf("after +%v: %s differs (written: %v) from the node's computing SIGNAL again", after, name, ok)
		}
	}
	if len(extended) != len(computedAgain) {
		t.Errorf("after +%v: %d files, want the %d of the node computing SIGNAL again", after, len(extended), len(computedAgain))
	}
}
