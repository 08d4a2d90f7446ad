package heartbeat

import (
	"errors"
	"runtime/debug"
	"slices"
	"testing"
	"time"
)

// TestAHeartbeatWithNewsCollectsWhereWhatItHoldsDrops: a heartbeat that
// loads the history runs the collector once it is loaded, after each
// gathering of SIGNAL's input and after each computation of SIGNAL, so
// that no cycle the runtime times by itself sets the heap's goal from
// the load's buffers or from SIGNAL's mesh and report live together. The
// first heartbeat writes our MANIFEST.md, SIGNAL's input, so it gathers
// and computes twice; a quiet heartbeat that loads no history runs none.
func TestAHeartbeatWithNewsCollectsWhereWhatItHoldsDrops(t *testing.T) {
	dir := committedNodeOfOnePeer(t)
	var points []string
	collected = func(p string) { points = append(points, p) }
	defer func() { collected = nil }()

	beat(t, dir, testNow)
	want := []string{collectLoaded, collectGathered, collectComputed, collectGathered, collectComputed}
	if !slices.Equal(points, want) {
		t.Fatalf("heartbeat with news: collected at %q; want %q", points, want)
	}
	gitCommitAll(t, dir)
	points = nil
	beat(t, dir, testNow.Add(30*time.Minute))
	if len(points) != 0 {
		t.Errorf("quiet heartbeat: collected at %q; want none (it loads no history)", points)
	}
}

// TestTheHistoryLoadsWithTheCollectorsPercentRaised: a heartbeat that
// loads the history loads it with the collector's percent loadFactor
// times what it was, still raised when it collects at collectLoaded, and
// puts it back after; a quiet heartbeat, which loads no history, leaves
// it alone.
func TestTheHistoryLoadsWithTheCollectorsPercentRaised(t *testing.T) {
	dir := committedNodeOfOnePeer(t)
	base := gcPercent()
	atLoaded := 0
	collected = func(p string) {
		if p == collectLoaded {
			atLoaded = gcPercent()
		}
	}
	defer func() { collected = nil }()

	beat(t, dir, testNow)
	if atLoaded != base*loadFactor {
		t.Errorf("percent when the loaded history is collected = %d; want %d (%d x %d)", atLoaded, base*loadFactor, base, loadFactor)
	}
	if got := gcPercent(); got != base {
		t.Errorf("percent after the heartbeat = %d; want %d, as before it", got, base)
	}
	gitCommitAll(t, dir)
	atLoaded = 0
	beat(t, dir, testNow.Add(30*time.Minute))
	if got := gcPercent(); atLoaded != 0 || got != base {
		t.Errorf("quiet heartbeat: percent %d at a load, %d after; want no load and %d", atLoaded, got, base)
	}
}

// TestALoadPutsTheCollectorsPercentBack: a load that fails puts the
// percent back without collecting; loads side by side raise it once and
// the last puts it back; a percent turned off stays off.
func TestALoadPutsTheCollectorsPercentBack(t *testing.T) {
	base := gcPercent()
	var during []int
	failed := loadThenCollect(func() error {
		during = append(during, gcPercent())
		return errors.New("no history")
	})
	if failed == nil || gcPercent() != base {
		t.Errorf("failed load: err %v, percent after %d; want the error and %d", failed, gcPercent(), base)
	}
	err := loadThenCollect(func() error {
		during = append(during, gcPercent())
		return loadThenCollect(func() error {
			during = append(during, gcPercent())
			return nil
		})
	})
	want := []int{base * loadFactor, base * loadFactor, base * loadFactor}
	if err != nil || !slices.Equal(during, want) || gcPercent() != base {
		t.Errorf("percent during the loads %v, after %d (err %v); want %v and %d", during, gcPercent(), err, want, base)
	}

	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	off := 0
	if err := loadThenCollect(func() error { off = gcPercent(); return nil }); err != nil || off >= 0 || gcPercent() >= 0 {
		t.Errorf("GOGC=off: percent %d during the load, %d after (err %v); want off throughout", off, gcPercent(), err)
	}
}
