// Package corpustest finds the snapshot of the real mesh that sits beside
// the repository at ../shared/corpus/mycel-basecamp, for tests that check
// the code against real data. A fork has no such folder: the tests that use
// it skip with a message that says so.
package corpustest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of the mycel-basecamp snapshot, or skips the
// test when it is absent.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, ok := Find()
	if !ok {
		tb.Skip("real-mesh corpus not found at ../shared/corpus/mycel-basecamp beside the repository; skipping (forks do not have it)")
	}
	return dir
}

// Find looks for the snapshot beside the module root, walking up from the
// working directory to the directory that holds go.mod.
func Find() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(filepath.Dir(d), "shared", "corpus", "mycel-basecamp")
			if fi, err := os.Stat(c); err == nil && fi.IsDir() {
				return c, true
			}
			return "", false
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}
