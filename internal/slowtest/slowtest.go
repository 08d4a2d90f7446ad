// Package slowtest marks the few tests that take a minute or more of CPU
// on a 2-core machine under the race detector (a thousand traces through
// four queue workers, the heuristic against its reference on the whole
// corpus). README's test command skips them, so that a newcomer's
// `go test ./...` ends in a few minutes; .ci/run sets Env and runs them
// all under the race detector. README.md names every one of them (a test
// in the repository's root checks it).
package slowtest

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the slow tests on: "1" runs
// them.
const Env = "MESHNODE_SLOW_TESTS"

// Require skips tb unless Env is "1", with a message that names Env.
func Require(tb testing.TB) {
	tb.Helper()
	if !Enabled() {
		tb.Skipf("slow test: skipped unless %s=1 (as .ci/run sets it)", Env)
	}
}

// Enabled reports whether Env asks for the slow tests.
func Enabled() bool { return os.Getenv(Env) == "1" }
