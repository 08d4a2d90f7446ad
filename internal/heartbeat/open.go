package heartbeat

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/filelock"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// lockWait is how long a heartbeat waits for another one on the same node
// to finish before giving up: two runs never poll at once, so cursors are
// never written by two processes.
const lockWait = 2 * time.Minute

// open loads everything a heartbeat needs and takes the node's lock.
func open(ctx context.Context, opts Options) (*job, func(), error) {
	if opts.Config == nil {
		return nil, nil, fmt.Errorf("heartbeat: no config")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	wait := lockWait
	if opts.NoWait {
		wait = 0
	}
	unlock, err := lock(ctx, opts.Dir, wait, opts.Waiting)
	if err != nil {
		return nil, nil, err
	}
	if err := removeTemps(opts.Dir); err != nil {
		unlock()
		return nil, nil, err
	}
	if err := migrateNames(opts.Dir); err != nil {
		unlock()
		return nil, nil, err
	}
	n := &job{opts: opts, cfg: opts.Config, now: opts.Now().UTC().Truncate(time.Second), log: opts.Logger, fetched: map[manifest.Hash]fetched{},
		firstSeen: map[manifest.Hash]time.Time{}, rereading: map[string]bool{}, held: newHeldCopies()}
	if err := n.load(ctx); err != nil {
		unlock()
		return nil, nil, err
	}
	n.client = opts.Client
	if n.client == nil {
		n.client = fetch.New(clientOptions(n.cfg, opts.Version, opts.Now))
	}
	n.client.LoadHosts(hostsFromState(n.state))
	return n, unlock, nil
}

// removeTemps deletes what writes of a killed heartbeat left half done, so
// no temporary file is ever published or committed. It runs under the lock.
func removeTemps(dir string) error {
	subs := []string{".", node.StateDir, node.ValidationsDir, node.DisputesDir, node.TracesDir}
	for _, f := range splitStates() {
		subs = append(subs, statefile.Dir(f))
	}
	for _, sub := range subs {
		if err := removeTempsIn(dir, sub); err != nil {
			return err
		}
	}
	return nil
}

// removeTempsIn removes the temporary files of the directory sub of the
// node at dir. The queue's directories are written by `meshnode inbox`
// and the workers under the queue's own lock, so their temporary files
// are removed under it too: a write of theirs in progress is not one a
// killed heartbeat left.
func removeTempsIn(dir, sub string) error {
	if sub == statefile.Dir(node.QueueFile) || sub == statefile.Dir(node.QueueSettledFile) {
		unlock, err := lockQueue(dir)
		if err != nil {
			return err
		}
		defer unlock()
	}
	return atomicfile.RemoveTemps(filepath.Join(dir, sub))
}

// lockQueue takes the lock the file queue's writers take
// (queue.json.lock).
func lockQueue(dir string) (func(), error) {
	unlock, err := filelock.Lock(filepath.Join(dir, node.QueueFile) + ".lock")
	if err != nil {
		return nil, fmt.Errorf("lock the queue: %w", err)
	}
	return unlock, nil
}

// splitStates returns the node's states kept as a directory of a file per
// peer (statefile), relative to the node's directory.
func splitStates() []string {
	return append(slices.Clone(node.StateFiles), node.LogPinsFile, node.RelaysFile)
}

// migrateNames moves the files per peer of every split state into its
// shards (statefile.Migrate), and gives copies/' files the names this code
// writes (statefile.MigrateFlat). It runs under the
// lock, before anything is read.
func migrateNames(dir string) error {
	for _, f := range splitStates() {
		if err := migrateState(dir, f); err != nil {
			return err
		}
	}
	return nil
}

// migrateState migrates the split state f of the node at dir. The queue's
// directories are also written by `meshnode inbox` and the workers, which
// take the queue's own lock, not the heartbeat's: their migration takes it
// too, or a write landing between the migration's read of a peer's file
// and its write of the shard would be lost.
func migrateState(dir, f string) error {
	p := filepath.Join(dir, f)
	if f == node.CopiesFile {
		// copies/ stays a file per peer: the site reads its files.
		_, err := statefile.MigrateFlat(p)
		return err
	}
	if f == node.QueueFile || f == node.QueueSettledFile {
		unlock, err := lockQueue(dir)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", f, err)
		}
		defer unlock()
	}
	_, err := statefile.Migrate(p)
	return err
}

// load opens the node's snapshot: the one read of its files this
// heartbeat makes (docs/design.md). The history (published files, ledger,
// copies) is read only when the derived record cannot stand for it
// (quiet.go). Git's check of the history runs meanwhile (historyTree).
func (n *job) load(ctx context.Context) error {
	tree := startHistoryTree(ctx, n.opts.Dir)
	defer tree.wait()
	var err error
	n.snap, err = node.Open(n.opts.Dir, node.Options{Now: func() time.Time { return n.now }, Deferred: true, SealedSummaries: true})
	if err != nil {
		return err
	}
	n.state = n.snap.Cursors
	if n.queue, err = n.openQueue(); err != nil {
		return err
	}
	n.pins, err = logpin.Load(filepath.Join(n.opts.Dir, node.LogPinsFile))
	if err != nil {
		return err
	}
	var why string
	if n.quiet, why = n.quietRecord(tree); n.quiet != nil {
		n.own = hashSet(n.quiet.Own)
		n.log.Info("history not loaded: nothing changed since its derived state was computed")
		return nil
	}
	return n.history(why)
}

// lock takes the node's heartbeat lock, waiting for a running heartbeat to
// finish for at most wait; waiting, when set, is told once that it waits.
func lock(ctx context.Context, dir string, wait time.Duration, waiting func(string, time.Duration)) (func(), error) {
	deadline := time.Now().Add(wait)
	for told := false; ; {
		unlock, err := node.Lock(dir)
		if err == nil {
			return unlock, nil
		}
		if err != node.ErrLocked || !time.Now().Before(deadline) {
			return nil, lockError(dir, err)
		}
		if !told && waiting != nil {
			waiting(node.LockHolder(dir), wait)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lockError names the lock's holder, when it is known, beside why the
// lock was not taken.
func lockError(dir string, err error) error {
	if holder := node.LockHolder(dir); err == node.ErrLocked && holder != "" {
		return fmt.Errorf("lock %s: %w (%s)", dir, err, holder)
	}
	return fmt.Errorf("lock %s: %w", dir, err)
}
