package heartbeat

import (
	"testing"
)

// cpuLoop runs f as b.Loop runs it and reports the CPU time (user and
// system, of every thread: the garbage collector's too) an op took, in
// ns: on a machine others load, the figure that compares.
func cpuLoop(b *testing.B, f func()) {
	b.Helper()
	start := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
