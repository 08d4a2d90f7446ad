// Package cputime measures the CPU time a benchmark's process uses, user
// and system, of every thread (the garbage collector's too): on a machine
// other jobs load, the figure that compares, where wall time measures the
// wait for a core. Benchmarks report it beside ns/op.
package cputime

import (
	"syscall"
	"testing"
	"time"
)

// Used is the CPU time the process has used so far, user and system; 0
// where the system does not say.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Loop runs f as b.Loop runs it and reports the CPU time an op took, in
// ns, as the metric "cpu-ns/op".
func Loop(b *testing.B, f func()) {
	b.Helper()
	start := Used()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(Used()-start)/float64(b.N), "cpu-ns/op")
}
