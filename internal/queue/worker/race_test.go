//go:build race

package worker_test

// raceEnabled: the race detector makes each score about nine times
// slower, so tests that score many traces score fewer.
const raceEnabled = true
