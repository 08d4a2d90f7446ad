package ledger

import (
	"syscall"
	"testing"
	"time"
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

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
