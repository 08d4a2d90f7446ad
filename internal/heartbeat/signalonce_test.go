package heartbeat

import (
	"testing"
	"time"

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
