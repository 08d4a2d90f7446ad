package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/worker"
	"github.com/meshnode/meshnode/internal/score"
)

func init() {
	register(&command{
		name:    "worker",
		summary: "score a node's queue kept in PostgreSQL, from any machine",
		usage: `Usage: meshnode worker [--owner NAME] [--lease 2m] [--scorer heuristic|command]
                       [--scorer-timeout 1m] [--poll 10s] [--until-empty] [-- COMMAND ARGS...]

Scores the validation queue a node keeps in PostgreSQL (docs/queue.md),
one trace at a time, and needs no node directory: it claims an item
(FOR UPDATE SKIP LOCKED, with a lease it renews while it scores), fetches
the trace by its URL, verifies its sha256, scores it and stores the result
in the queue, for the node that owns the queue to publish. Run as many
workers, on as many machines, as the scoring needs; each trace is scored
once, and a worker that dies has its item taken over when its lease ends.

The connection string is read from the environment only: MESHNODE_QUEUE_DSN,
or DATABASE_URL when that is unset. It is never read from mesh.yaml, which
a node commits to a public repository. The scoring command, for
--scorer command, follows "--" (see docs/scoring.md for its protocol).

Stops on Ctrl-C or SIGTERM, giving back the item it was scoring.

Examples:
  MESHNODE_QUEUE_DSN=postgres://scorer@db.internal/meshnode meshnode worker
  meshnode worker --scorer command --owner gpu1 -- python3 score.py --strict

Flags:
`,
		run: runWorker,
	})
}

type workerOptions struct {
	owner, scorer        string
	lease, timeout, poll time.Duration
	untilEmpty, private  bool
	maxBytes             int64
}

func runWorker(ctx context.Context, e *env, args []string) error {
	var o workerOptions
	host, _ := os.Hostname()
	fs := newFlagSet("worker")
	fs.StringVar(&o.owner, "owner", host+"-"+strconv.Itoa(os.Getpid()), "this worker's name, unique among the queue's workers")
	fs.DurationVar(&o.lease, "lease", queue.DefaultLease, "how long a claim lasts unless renewed")
	fs.StringVar(&o.scorer, "scorer", score.KindHeuristic, "heuristic, or command (the command follows --)")
	fs.DurationVar(&o.timeout, "scorer-timeout", time.Minute, "how long one run of the scoring command may take")
	fs.DurationVar(&o.poll, "poll", 10*time.Second, "how long to wait when nothing is claimable")
	fs.BoolVar(&o.untilEmpty, "until-empty", false, "exit once nothing is queued (but items waiting for a withdrawn trace) or in progress")
	fs.BoolVar(&o.private, "allow-private-addresses", false, "let fetches reach private and loopback addresses (tests, private meshes)")
	fs.Int64Var(&o.maxBytes, "max-trace-bytes", 0, "largest trace fetched (default: 1 MiB, the default limits.trace_bytes the heartbeat reads with)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	scorer, err := workerScorer(o.scorer, fs.Args(), o.timeout)
	if err != nil {
		return err
	}
	dsn, err := pgqueue.DSNFromEnv()
	if err != nil {
		return usagef("export "+pgqueue.EnvDSN+"=postgres://USER@HOST/DB (docs/queue.md)", "worker: %v", err)
	}
	s, err := pgqueue.Connect(dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	e.untilStopped = true
	w := &worker.Worker{
		Store: s, Owner: o.owner, Lease: o.lease, Scorer: scorer, MaxBytes: o.maxBytes,
		Poll: o.poll, UntilEmpty: o.untilEmpty,
		Client: fetch.New(fetch.Options{AllowPrivate: o.private, UserAgent: "meshnode/" + moduleVersion() + " (worker " + o.owner + ")"}),
		Log: func(format string, args ...any) {
			fmt.Fprintf(e.stderr, "worker %s: %s\n", o.owner, fmt.Sprintf(format, args...))
		},
	}
	st, err := w.Run(ctx)
	fmt.Fprintf(e.stdout, "worker %s: %d done, %d failed\n", o.owner, st.Done, st.Failed)
	if err != nil {
		return err
	}
	return ctx.Err()
}

func workerScorer(kind string, command []string, timeout time.Duration) (score.Scorer, error) {
	switch kind {
	case score.KindHeuristic:
		if len(command) > 0 {
			return nil, usagef("run 'meshnode worker -h' for its usage", "worker: a command after -- needs --scorer command")
		}
	case score.KindCommand:
	default:
		return nil, usagef("run 'meshnode worker -h' for its usage", "worker: --scorer must be heuristic or command, not %q", kind)
	}
	return score.New(kind, command, timeout)
}
