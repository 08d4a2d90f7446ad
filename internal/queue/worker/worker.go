// Package worker scores a node's validation queue from a process that has
// no node directory (docs/queue.md): it claims one item at a time from a
// shared store, fetches the trace by URL, verifies its hash, scores it and
// finishes the item with the result, for the node to publish. While it
// scores it renews its lease; if a renewal finds the claim gone, it stops
// and leaves the item to its new holder.
package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// Worker claims and scores items. Its zero durations take defaults.
type Worker struct {
	Store  queue.Store
	Owner  string        // unique among the workers of one queue
	Lease  time.Duration // queue.DefaultLease when ≤ 0
	Client *fetch.Client
	Scorer score.Scorer
	// MaxBytes caps a trace's size; node.MaxFileBytes (limits.trace_bytes's
	// default, what the heartbeat reads with) when 0.
	MaxBytes int64
	// Poll is how long Run waits when nothing is claimable; ≤ 0 makes Run
	// return then instead.
	Poll time.Duration
	// UntilEmpty makes Run return once the store holds nothing queued or
	// in progress, after waiting out other workers' leases; an item
	// queued but Withheld (its peer withdrew its trace) waits for the
	// node, not for a worker.
	UntilEmpty bool
	Now        func() time.Time                 // time.Now when nil
	Log        func(format string, args ...any) // nil: silent
}

// Stats counts what a worker did.
type Stats struct {
	Done, Failed int
}

// Run works until ctx ends or, without Poll, until nothing is claimable.
// It returns an error only when the store fails.
func (w *Worker) Run(ctx context.Context) (Stats, error) {
	var st Stats
	for ctx.Err() == nil {
		status, err := w.One(ctx)
		if err != nil {
			return st, err
		}
		switch status {
		case queue.StatusDone:
			st.Done++
		case queue.StatusFailed:
			st.Failed++
		case "":
			if w.Poll <= 0 {
				return st, nil
			}
			if w.UntilEmpty {
				empty, err := w.empty()
				if err != nil || empty {
					return st, err
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(w.Poll):
			}
		}
	}
	return st, nil
}

// One claims one item and works it; it returns the status the item ended
// with, or "" when nothing was claimable or the work was interrupted.
func (w *Worker) One(ctx context.Context) (string, error) {
	got, err := w.Store.Claim(queue.Claim{Owner: w.Owner, Now: w.now(), Lease: w.Lease, Max: 1})
	if err != nil {
		return "", fmt.Errorf("claim: %w", err)
	}
	if len(got) == 0 {
		return "", nil
	}
	it := got[0]
	lost := make(chan struct{})
	workCtx, cancel := context.WithCancel(ctx)
	stopRenew := w.renew(workCtx, it, cancel, lost)
	res, werr := w.work(workCtx, it)
	stopRenew()
	cancel()
	select {
	case <-lost:
		w.logf("%s: claim lost to another worker; its result is dropped", it.ID)
		return "", nil
	default:
	}
	if ctx.Err() != nil {
		// Stopped: the item goes back to the queue, for this worker's
		// successor or another.
		_, err := w.Store.Update(queue.Update{Kind: queue.Release, ID: it.ID, Owner: w.Owner, Version: it.Version, At: w.now()})
		return "", err
	}
	u := queue.Update{Kind: queue.Finish, ID: it.ID, Owner: w.Owner, Version: it.Version, At: w.now()}
	if werr != nil {
		u.Status, u.Reason = queue.StatusFailed, werr.Error()
	} else {
		u.Status, u.Reason, u.Result = queue.StatusDone, fmt.Sprintf("scored by %s (%s)", w.Owner, res.Scorer), res
	}
	results, err := w.Store.Update(u)
	if err != nil {
		return "", fmt.Errorf("finish %s: %w", it.ID, err)
	}
	if results[0] != nil {
		w.logf("%s: %v", it.ID, results[0])
		return "", nil
	}
	w.logf("%s: %s: %s", it.ID, u.Status, u.Reason)
	return u.Status, nil
}

// renew extends the claim every third of the lease until stop is called;
// when the claim is gone it closes lost and cancels the work.
func (w *Worker) renew(ctx context.Context, it queue.Item, cancel func(), lost chan struct{}) (stop func()) {
	lease := w.Lease
	if lease <= 0 {
		lease = queue.DefaultLease
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			res, err := w.Store.Update(queue.Update{Kind: queue.Renew, ID: it.ID, Owner: w.Owner, Version: it.Version, At: w.now(), Lease: lease})
			if err == nil && errors.Is(res[0], queue.ErrConflict) {
				close(lost)
				cancel()
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}

// work fetches, verifies and scores it.
func (w *Worker) work(ctx context.Context, it queue.Item) (*queue.Result, error) {
	v := integrity.Verifier{Get: func(ctx context.Context, u string, max int64) ([]byte, error) {
		resp, err := w.Client.Get(ctx, fetch.Request{URL: u, MaxBytes: max, Within: it.FromURL})
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}}
	got, err := v.Fetch(ctx, integrity.Claim{Base: it.FromURL, File: it.TraceURL, Hash: it.Hash, MaxBytes: w.MaxBytes})
	if err != nil {
		return nil, queuedFileError(err)
	}
	t, err := trace.Parse(got.Body)
	if err != nil {
		return nil, fmt.Errorf("parse trace: %w", err)
	}
	now := w.now()
	r, err := w.Scorer.Score(ctx, score.Input{Record: it.Record(), Raw: got.Body, Trace: t, Now: now})
	if err != nil {
		return nil, fmt.Errorf("scorer: %w", err)
	}
	reasons := map[string][]string{}
	for i, rs := range r.Reasons {
		if len(rs) > 0 {
			reasons[validation.Dimensions[i]] = rs
		}
	}
	return &queue.Result{Scores: r.Scores, Reasons: reasons, Notes: r.Notes, Scorer: w.Scorer.Name(), ScoredAt: now}, nil
}

// empty reports whether every item in the store is settled.
func (w *Worker) empty() (bool, error) {
	all, err := w.Store.List()
	if err != nil {
		return false, fmt.Errorf("list queue: %w", err)
	}
	for _, it := range all {
		if !it.Terminal() && !it.Withheld() {
			return false, nil
		}
	}
	return true, nil
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		w.Log(format, args...)
	}
}

// queuedFileError words a refusal of a queued trace; its hash was checked
// when it was queued, so a mismatch now means its bytes changed.
func queuedFileError(err error) error {
	if integrity.KindOf(err) == integrity.KindHash {
		return fmt.Errorf("trace changed since it was queued: %w", err)
	}
	return fmt.Errorf("fetch trace: %w", err)
}
