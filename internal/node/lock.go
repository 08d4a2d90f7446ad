package node

import (
	"errors"
	"path/filepath"

	"github.com/meshnode/meshnode/internal/filelock"
)

// ErrLocked is returned by Lock, unwrapped, when another heartbeat holds the
// lock.
var ErrLocked = errors.New("another heartbeat holds " + LockFile)

// Lock takes the node's heartbeat lock (an exclusive flock on
// DIR/mesh-state/heartbeat.lock) without waiting. It returns ErrLocked when
// another process holds it. The lock is released by unlock or when the
// process dies, so a crashed heartbeat never wedges the node.
func Lock(dir string) (unlock func(), err error) {
	unlock, err = filelock.TryLock(filepath.Join(dir, filepath.FromSlash(LockFile)))
	if errors.Is(err, filelock.ErrHeld) {
		return nil, ErrLocked
	}
	return unlock, err
}
