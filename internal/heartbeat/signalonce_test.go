package heartbeat

import (
	"fmt"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestSignalIsComputedOnceUnlessTheHeartbeatChangedItsInput: standing
// (before scoring) and our statuses (before MANIFEST.md) share one
// computation when nothing was written between them; a heartbeat that
// wrote validations computes again, since they are SIGNAL's input.
func TestSignalIsComputedOnceUnlessTheHeartbeatChangedItsInput(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	computed := 0
	computingSignal = func() { computed++ }
	defer func() { computingSignal = nil }()

	sum := beat(t, dir, testNow)
	if sum.ValidationsPublished != 2 || computed != 2 {
		t.Fatalf("first heartbeat: %d validations published, SIGNAL computed %d times; want 2 and 2 (before and after the validations)",
			sum.ValidationsPublished, computed)
	}
	computed = 0
	sum = beat(t, dir, testNow.Add(30*time.Minute))
	if sum.ValidationsPublished != 0 || computed != 1 {
		t.Errorf("quiet heartbeat: %d validations published, SIGNAL computed %d times; want 0 and 1", sum.ValidationsPublished, computed)
	}
}

// TestTheReserveDutyIsComputedOnceUnlessTheHeartbeatChangedItsInput: under
// mesh-2026-6 a heartbeat with news needs the reserve's duty twice, to
// queue what is due (apply) and to keep when the next comes due (the
// derived record), SIGNAL twice (standing, the derived record), and
// SIGNAL's input for the assignments, the duty and SIGNAL. When it writes
// nothing in between (a juror's vote on ada's trace is its news, and our
// MANIFEST.md is rewritten with the same bytes), it gathers the input
// once and computes the duty and SIGNAL once, and the record still says
// when the trace comes due. One that writes computes them again: the
// first (our MANIFEST.md changed: it lists our own traces, SIGNAL's
// input), and the one that publishes the node's reserve vote, which takes
// the trace off the duty: the record then says none is to come.
func TestTheReserveDutyIsComputedOnceUnlessTheHeartbeatChangedItsInput(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	dir, vote := reserveScene(t, day.Add(10*time.Hour))
	var gathered, duties, signals int
	gatheringSignal, computingDuty, computingSignal = func() { gathered++ }, func() { duties++ }, func() { signals++ }
	defer func() { gatheringSignal, computingDuty, computingSignal = nil, nil, nil }()
	for _, st := range []struct {
		at                       time.Duration
		before                   func()
		reserve                  int
		gathered, duties, signal int
		due                      time.Time // the derived record's reserve_due
	}{
		{13 * time.Hour, nil, 0, 2, 2, 2, day.Add(37 * time.Hour)},
		{14 * time.Hour, func() { vote(day.Add(13*time.Hour + 30*time.Minute)) }, 0, 1, 1, 1, day.Add(37 * time.Hour)},
		{37*time.Hour + 30*time.Minute, nil, 1, 3, 2, 3, time.Time{}},
	} {
		if st.before != nil {
			st.before()
		}
		gathered, duties, signals = 0, 0, 0
		sum := beat(t, dir, day.Add(st.at))
		d, err := readDerived(dir)
		if err != nil || d == nil {
			t.Fatalf("at +%v: derived record %v: %v", st.at, d, err)
		}
		if sum.Reserve != st.reserve || gathered != st.gathered || duties != st.duties || signals != st.signal || !d.ReserveDue.Equal(st.due) {
			t.Errorf("at +%v: reserve %d, SIGNAL's input gathered %d times, the duty computed %d, SIGNAL %d, reserve_due %v; want %d, %d, %d, %d, %v",
				st.at, sum.Reserve, gathered, duties, signals, d.ReserveDue, st.reserve, st.gathered, st.duties, st.signal, st.due)
		}
	}
}

// reserveScene is a node in git, one of twelve founders under
// mesh-2026-6, whose peer ada published, at submitted, a trace that puts
// the node in its reserve; vote publishes, dated at, the pass of the
// trace's first juror.
func reserveScene(t *testing.T, submitted time.Time) (dir string, vote func(at time.Time)) {
	t.Helper()
	ms, srv, pool, peers, founders := newFoundersMesh(t, "mesh-2026-6")
	var h manifest.Hash
	for i := 0; ; i++ {
		body := fmt.Sprintf("# Ada's note %d\n\n## Work\n\nDone, step %d.\n", i, i)
		h = manifest.HashBytes([]byte(body))
		if r := slices.Index(byWeight(h, pool), "tester"); r >= 5 && r < 10 {
			ms.publish("ada", "traces/001.md", "knowledge", body, submitted)
			break
		}
	}
	dir = newNode(t, peers, "polling:\n  quiet_after: 0\n")
	write(t, dir, node.FoundersFile, founders)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return dir, func(at time.Time) {
		n := byWeight(h, pool)[0]
		ms.publish(n, "validations/val-ada.md", "validation", fmt.Sprintf(
			"# VALIDATION\n\nvalidator: %s\nvalidator_url: %s/%s/\ntrace_url: %s/ada/traces/001.md\ntrace_hash: %s\nvalidated_at: %s\nresult: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
			n, srv.URL, n, srv.URL, h, at.Format(time.RFC3339)), at)
	}
}

// TestPublishingOurTraceComputesSignalForItsRowsOnce: a heartbeat that
// publishes a trace of ours resolves its rows' statuses from SIGNAL with
// the new row among ours (planManifest), and what follows publishing (the
// derived record) uses that report: SIGNAL is computed twice, for
// standing and for the rows written. It is our first trace, so the
// report over the rows before does not hold us, and signal.Extend's rule
// refuses to extend it (TestPublishingAnotherTraceOfOursComputesSignalOnce
// is the heartbeat it extends).
func TestPublishingOurTraceComputesSignalForItsRowsOnce(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git") // the derived record digests the history with git
	}
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "scorer: manual\n")
	write(t, dir, node.FoundersFile, "good | "+good.URL+"/\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	beat(t, dir, testNow)
	if d, err := readDerived(dir); err != nil || d == nil {
		t.Fatalf("setup: no derived record: %v", err)
	}
	write(t, dir, "traces/ours.md", "# Ours\n\n## Work\n\nDone here.\n")
	computed := 0
	computingSignal = func() { computed++ }
	defer func() { computingSignal = nil }()
	sum := beat(t, dir, testNow.Add(30*time.Minute))
	if sum.TracesPublished != 1 || computed != 2 {
		t.Errorf("a heartbeat publishing our trace: %d traces published, SIGNAL computed %d times; want 1 and 2", sum.TracesPublished, computed)
	}
}
