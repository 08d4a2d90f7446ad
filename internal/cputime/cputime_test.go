package cputime

import (
	"testing"
	"time"
)

func TestUsedGrowsWithWork(t *testing.T) {
	before := Used()
	if before <= 0 {
		t.Fatalf("Used() = %v before any work, want the CPU the test process has already used", before)
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	n := 0
	for time.Now().Before(deadline) {
		n++
	}
	if after := Used(); after <= before {
		t.Errorf("Used() = %v after %d busy loops, not above %v", after, n, before)
	}
}

func BenchmarkLoop(b *testing.B) {
	s := 0
	Loop(b, func() {
		for i := range 1000 {
			s += i
		}
	})
	_ = s
}
