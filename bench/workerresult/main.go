// Command workerresult stores a worker's result for one queued item of a
// node's file queue, as `meshnode worker` does in a shared store: it
// claims the item of the trace -hash as the owner "worker" and finishes
// it as done with a result (docs/queue.md), at -at. bench/withdrawnwait.sh
// runs it (WAITING=result) before the trace's peer withdraws it, so the
// node holds the result back. Run it on a copy:
//
//	go run ./bench/workerresult -dir /dev/shm/node -hash sha256:… -at 2029-01-01T12:01:00Z
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/validation"
)

func main() {
	dir := flag.String("dir", "", "the node directory (a copy: its queue is changed)")
	hash := flag.String("hash", "", "the trace whose queued item the worker scores, sha256:<hex>")
	at := flag.String("at", "", "the worker's clock, RFC 3339")
	flag.Parse()
	if err := run(*dir, manifest.Hash(*hash), *at); err != nil {
		fmt.Fprintln(os.Stderr, "workerresult:", err)
		os.Exit(1)
	}
}

func run(dir string, h manifest.Hash, at string) error {
	now, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return fmt.Errorf("-at: %w", err)
	}
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	q.Now = func() time.Time { return now }
	items, err := q.Claim(queue.Claim{Owner: "worker", Now: now, Lease: time.Hour,
		Filter: func(it queue.Item) bool { return it.Hash == h }})
	if err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if len(items) != 1 {
		return fmt.Errorf("claim: %d items of %s, want one", len(items), h)
	}
	res := &queue.Result{Scores: validation.Scores{4, 3, 4, 2, 4, 3}, Scorer: "command", ScoredAt: now}
	out, err := q.Update(queue.Update{Kind: queue.Finish, ID: items[0].ID, Owner: "worker", Version: items[0].Version,
		Status: queue.StatusDone, At: now, Result: res})
	if err == nil {
		err = out[0]
	}
	if err != nil {
		return fmt.Errorf("finish %s: %w", items[0].ID, err)
	}
	fmt.Printf("stored a worker's result for %s\n", items[0].ID)
	return nil
}
