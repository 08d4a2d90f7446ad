package main

import (
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
)

// nodeQueue opens the node's queue as the heartbeat does: in PostgreSQL
// when MESHNODE_QUEUE_DSN is set (docs/queue.md), else mesh-state/queue/.
// Every command that reads or settles the queue (inbox, score, watch)
// opens it here, so none of them looks in the wrong store. The returned
// func closes it.
func nodeQueue(dir string, clock func() time.Time) (queue.Store, func(), error) {
	if dsn, ok := pgqueue.NodeDSNFromEnv(); ok {
		s, err := pgqueue.Connect(dsn)
		if err != nil {
			return nil, nil, err
		}
		return s.WithNow(clock), s.Close, nil
	}
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	q.Now = clock
	return q, func() {}, nil
}
