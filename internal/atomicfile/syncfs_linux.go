//go:build linux

package atomicfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SyncFS makes every write to the file system that holds dir durable
// (syncfs(2)): one flush for the files WriteFileUnsynced wrote there,
// instead of an fsync each.
func SyncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
