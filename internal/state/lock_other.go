//go:build !unix

package state

// lockFile does not lock where flock is missing: meshnode runs its
// heartbeats on Linux (GitHub Actions); elsewhere a person runs one at a time.
func lockFile(path string) (func(), error) {
	return func() {}, nil
}
