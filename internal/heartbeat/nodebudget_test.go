package heartbeat

import "testing"

// TestKeepsNoMoreBodiesThanAHeartbeatScores: small traces fit
// maxKeptBytes by the thousand, but a heartbeat scores at most
// maxValidationsPerHeartbeat of them; keep refuses the bytes of any more
// until scoring hands one on.
func TestKeepsNoMoreBodiesThanAHeartbeatScores(t *testing.T) {
	const size = 100
	var nb nodeBudget
	for i := range maxValidationsPerHeartbeat {
		if !nb.reserve(size, false) || !nb.keep(size, size, true) {
			t.Fatalf("file %d not kept, %d bytes kept of %d", i+1, nb.kept, maxKeptBytes)
		}
	}
	if !nb.reserve(size, false) || nb.keep(size, size, true) {
		t.Fatalf("file %d kept: more than a heartbeat scores", maxValidationsPerHeartbeat+1)
	}
	nb.handedOn(size)
	if !nb.reserve(size, false) || !nb.keep(size, size, true) {
		t.Fatalf("no file kept after scoring handed one on")
	}
	if now, _ := nb.inUse(); now != maxValidationsPerHeartbeat*size {
		t.Errorf("%d bytes in use, want %d", now, maxValidationsPerHeartbeat*size)
	}
}
