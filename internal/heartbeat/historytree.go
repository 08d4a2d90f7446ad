package heartbeat

import (
	"context"

	"github.com/meshnode/meshnode/internal/gittree"
	"github.com/meshnode/meshnode/internal/node"
)

// historyTree is what git would record for the node's history
// (gittree.Current of node.HistoryPaths), asked as the heartbeat opens:
// git stats the history's files while the heartbeat reads its state, on
// the other core, and the derived record's check waits for its answer
// (docs/decisions.md, "A quiet heartbeat").
type historyTree struct {
	done chan struct{}
	tree []byte
	err  error
}

// startHistoryTree starts git on the history of the node in dir. It must
// start after the last write the heartbeat makes there before its check
// (open's removal of temporary files and renames).
func startHistoryTree(ctx context.Context, dir string) *historyTree {
	t := &historyTree{done: make(chan struct{})}
	go func() {
		defer close(t.done)
		t.tree, t.err = gittree.Current(ctx, dir, node.HistoryPaths)
	}()
	return t
}

// wait returns git's answer once git has given it. A heartbeat that fails
// before its check waits too, rather than kill git while it may hold the
// lock of git's index: no git command outlives the open.
func (t *historyTree) wait() ([]byte, error) {
	<-t.done
	return t.tree, t.err
}
