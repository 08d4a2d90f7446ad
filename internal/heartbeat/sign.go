package heartbeat

import (
	"errors"
	"fmt"

	"github.com/meshnode/meshnode/internal/node"
)

// Sign extends and signs the log of the node at dir, served at url, with
// key, from the node's own published rows (MANIFEST.md and its archive
// pages) exactly as a heartbeat with the key would (PlanLog), and reports
// whether a file of log/ changed. It is the signing step that holds the
// key (docs/github.md): it reads only the node's own files, nothing from
// peers and no network, under the node's lock. Without a key, or with one
// IDENTITY.md does not publish, the error is an *UnsignedError and nothing
// is written.
func Sign(dir, url, key string) (bool, error) {
	if err := checkLogKey(dir, url, key); err != nil {
		return false, err
	}
	unlock, err := node.Lock(dir)
	if errors.Is(err, node.ErrLocked) {
		return false, fmt.Errorf("sign: a heartbeat holds the node's lock (%s): run sign after it", node.LockFile)
	}
	if err != nil {
		return false, fmt.Errorf("sign: %w", err)
	}
	defer unlock()
	snap, err := node.Open(dir, node.Options{Own: true})
	if err != nil {
		return false, fmt.Errorf("sign: %w", err)
	}
	if snap.ManifestErr != nil {
		return false, fmt.Errorf("sign: %w", snap.ManifestErr)
	}
	u, err := PlanLog(snap, url, snap.Rows(), key)
	if err != nil {
		return false, err
	}
	return u.Write(dir)
}
