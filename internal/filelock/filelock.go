// Package filelock holds exclusive advisory locks on files (flock), which
// the kernel releases when the holding process dies, so a crashed
// heartbeat never wedges a node.
package filelock

import "errors"

// ErrHeld is returned, unwrapped, by TryLock when another process holds the
// lock.
var ErrHeld = errors.New("lock held by another process")

// Lock takes an exclusive lock on path, creating the file and its
// directory when missing, and waits while another process holds it. The
// returned function releases it.
func Lock(path string) (unlock func(), err error) { return lock(path, true) }

// TryLock is Lock without waiting: it returns ErrHeld when another process
// holds the lock.
func TryLock(path string) (unlock func(), err error) { return lock(path, false) }
