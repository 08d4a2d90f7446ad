//go:build unix && !linux

package atomicfile

import "syscall"

// SyncFS makes the writes WriteFileUnsynced made durable. Without
// syncfs(2) it flushes every file system (sync(2)).
func SyncFS(dir string) error {
	syscall.Sync()
	return nil
}
