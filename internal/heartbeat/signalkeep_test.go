package heartbeat

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// openJobAt is openJob at now, with the function that unlocks it.
func openJobAt(t *testing.T, dir string, now time.Time) (*job, func()) {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n, unlock, err := open(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return n, unlock
}

// keptScene is a node under mesh-2026-6 with two traces of its own and
// two of ada's: one seen 81 days before the node's heartbeat, out of its
// ReserveWindow, and one seen a day before, in it. It returns the node's
// heartbeat and the hashes of ada's two traces.
func keptScene(t *testing.T) (n *job, old, recent manifest.Hash) {
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	ms, _, _, peers, founders := newFoundersMesh(t, "mesh-2026-6")
	old = ms.publish("ada", "traces/001.md", "knowledge", "# Ada's old note\n\n## Work\n\nDone long ago.\n", day)
	dir := newNode(t, peers, "polling:\n  quiet_after: 0\n")
	write(t, dir, node.FoundersFile, founders)
	addOwnTraces(t, dir, 0, 2)
	beat(t, dir, day.Add(time.Hour))
	recent = ms.publish("ada", "traces/002.md", "knowledge", "# Ada's note\n\n## Work\n\nDone today.\n", day.Add(80*24*time.Hour))
	at := day.Add(80*24*time.Hour + time.Hour)
	beat(t, dir, at)
	n, unlock := openJobAt(t, dir, at.Add(25*time.Hour))
	t.Cleanup(unlock)
	return n, old, recent
}

// wholeAndKept is SIGNAL's report over n's input keeping every result,
// and the one n's heartbeat computes.
func wholeAndKept(t *testing.T, n *job) (whole, kept signal.Report) {
	t.Helper()
	in, err := n.signalInput()
	if err != nil {
		t.Fatal(err)
	}
	whole = signal.NewPools().Compute(in)
	if kept, err = n.signalReport(); err != nil {
		t.Fatal(err)
	}
	return whole, kept
}

// TestAHeartbeatsSignalHoldsOnlyTheResultsItReads: after three years a
// heartbeat with news held SIGNAL's result of every trace through
// publishing, 91 MB, and reads only ours and those of the traces in their
// ReserveWindow. Its report now keeps those alone: none for ada's trace
// seen 81 days before, those of ada's recent trace and of our own.
func TestAHeartbeatsSignalHoldsOnlyTheResultsItReads(t *testing.T) {
	n, old, recent := keptScene(t)
	whole, kept := wholeAndKept(t, n)
	has := func(r signal.Report, h manifest.Hash) bool {
		return slices.ContainsFunc(r.Traces, func(tr signal.TraceResult) bool { return tr.Hash == h })
	}
	if !has(whole, old) || !has(whole, recent) || len(signal.Own(whole, n.cfg.URL)) != 2 {
		t.Fatalf("setup: the whole report holds %d results, ada's old %v, recent %v, %d of ours; want both and two",
			len(whole.Traces), has(whole, old), has(whole, recent), len(signal.Own(whole, n.cfg.URL)))
	}
	if has(kept, old) || !has(kept, recent) || len(kept.Traces) != len(whole.Traces)-1 {
		t.Errorf("the heartbeat's report holds %d results of %d, ada's old trace's %v, her recent one's %v; want all but the old one's",
			len(kept.Traces), len(whole.Traces), has(kept, old), has(kept, recent))
	}
}

// TestWhatAHeartbeatReadsOfSignalIsTheWholeReportsWord: our statuses, our
// progress to standing, the reserve's duty, the agents, their trust and
// rounds are the same from the heartbeat's report as from the whole one.
func TestWhatAHeartbeatReadsOfSignalIsTheWholeReportsWord(t *testing.T) {
	n, _, _ := keptScene(t)
	whole, kept := wholeAndKept(t, n)
	if !reflect.DeepEqual(kept.Agents, whole.Agents) || !reflect.DeepEqual(kept.Trust, whole.Trust) || kept.Rounds != whole.Rounds || kept.Rules != whole.Rules {
		t.Errorf("the heartbeat's report has other agents, trust or rounds than the whole one")
	}
	if g, w := signal.Own(kept, n.cfg.URL), signal.Own(whole, n.cfg.URL); !maps.Equal(g, w) {
		t.Errorf("our statuses %v, want the whole report's %v", g, w)
	}
	g, w := signal.ProgressOf(kept, n.cfg.URL), signal.ProgressOf(whole, n.cfg.URL)
	if g.Reason() != w.Reason() || g.Next() != w.Next() || g.HasStanding() != w.HasStanding() || g.Uncounted != w.Uncounted {
		t.Errorf("our progress %+v, want the whole report's %+v", g, w)
	}
	due, next, err := n.computeDuty()
	if err != nil {
		t.Fatal(err)
	}
	n.signal = &computedSignal{at: n.signalAt(), report: whole}
	wantDue, wantNext, err := n.computeDuty()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(due, wantDue) || !next.Equal(wantNext) {
		t.Errorf("the reserve's duty is %v (next %v), want the whole report's %v (next %v)", due, next, wantDue, wantNext)
	}
}

// TestKeepingOnlyTheResultsItReadsChangesNoFileAHeartbeatWrites: two
// nodes polling the same mesh through keptScene's heartbeats, and one more
// the day after, one keeping every result as before, write the same bytes
// to every file.
func TestKeepingOnlyTheResultsItReadsChangesNoFileAHeartbeatWrites(t *testing.T) {
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	ms, _, _, peers, founders := newFoundersMesh(t, "mesh-2026-6")
	ms.publish("ada", "traces/001.md", "knowledge", "# Ada's old note\n\n## Work\n\nDone long ago.\n", day)
	dirs := [2]string{}
	for i := range dirs {
		dirs[i] = newNode(t, peers, "polling:\n  quiet_after: 0\n")
		write(t, dirs[i], node.FoundersFile, founders)
		addOwnTraces(t, dirs[i], 0, 2)
	}
	beatBoth := func(at time.Time) {
		for i, dir := range dirs {
			keepingAllResults = i == 1
			beat(t, dir, at)
		}
		keepingAllResults = false
	}
	beatBoth(day.Add(time.Hour))
	ms.publish("ada", "traces/002.md", "knowledge", "# Ada's note\n\n## Work\n\nDone today.\n", day.Add(80*24*time.Hour))
	beatBoth(day.Add(80*24*time.Hour + time.Hour))
	beatBoth(day.Add(81*24*time.Hour + 2*time.Hour))
	kept, all := filesUnder(t, dirs[0]), filesUnder(t, dirs[1])
	if len(kept) < 10 {
		t.Fatalf("setup: the node holds %d files", len(kept))
	}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		if got, ok := kept[name]; !ok || !bytes.Equal(got, all[name]) {
			t.Errorf("%s differs (written: %v) from the node's keeping every result", name, ok)
		}
	}
	if len(kept) != len(all) {
		t.Errorf("%d files, want the %d of the node keeping every result", len(kept), len(all))
	}
}

// filesUnder is every file under dir but the lock files, by its slash
// path, with its bytes.
func filesUnder(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".lock") {
			return err // a lock file holds its heartbeat's process id, and is never committed
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
