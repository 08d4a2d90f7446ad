//go:build !unix

package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// SyncFS makes the writes WriteFileUnsynced made durable. Without a
// file-system-wide flush it fsyncs every regular file of dir.
func SyncFS(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, e.Name()), os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("sync %s: %w", e.Name(), err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("sync %s: %w", e.Name(), err)
		}
	}
	return nil
}
