package heartbeat

import (
	"path/filepath"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// assignmentPools is the pools of past epochs the node keeps
// (node.PoolsFile), read when SIGNAL or an assignment first needs them:
// SIGNAL and the assignments of one heartbeat share them, and only the
// pools of epochs whose files changed are computed (docs/decisions.md,
// Assignment: "The pool cache"). A file that does not read is said and
// ignored: the pools are computed again and savePools rewrites it.
func (n *job) assignmentPools() *signal.Pools {
	if n.pools == nil {
		p, err := signal.LoadPools(n.opts.Dir)
		if err != nil {
			n.log.Warn("assignment pools not read: computing them again", "err", err)
		}
		n.pools = p
	}
	return n.pools
}

// savePools writes the pools this heartbeat used, when it used any (a
// mesh whose rules assign nothing has no file), and only when they
// changed.
func (n *job) savePools() error {
	if poolsComputed != nil && n.pools != nil {
		poolsComputed(n.pools.Computed())
	}
	data := signal.MarshalPools(n.pools)
	if data == nil {
		return nil
	}
	changed, err := atomicfile.WriteFileIfChanged(filepath.Join(n.opts.Dir, filepath.FromSlash(node.PoolsFile)), data, 0o644)
	if err != nil {
		return err
	}
	n.sum.Changed = n.sum.Changed || changed
	return nil
}

// poolsComputed, when set (tests only), is told at the end of each
// heartbeat that read the pools how many it computed.
var poolsComputed func(int)
