package heartbeat

import (
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
