package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/validation"
)

// validate works the queue until ctx's deadline: with standing and a scorer that needs no
// person, every queued trace is claimed, scored and its validation written;
// otherwise the items wait, with the reason shown, and the manual scorer's
// items get the heuristic's suggestion for the person who will score them.
func (n *job) validate(ctx context.Context) error {
	scorer, err := score.New(n.cfg.Scorer, n.cfg.ScorerCommand, n.cfg.ScorerTimeout)
	if err != nil {
		return fmt.Errorf("scorer: %w", err)
	}
	ok, err := n.standing()
	if err != nil {
		return err
	}
	if !ok {
		return n.wait("no standing yet")
	}
	if n.cfg.Scorer == "manual" {
		return n.suggest(context.WithoutCancel(ctx))
	}
	if err := n.scoreQueue(ctx, scorer); err != nil {
		return err
	}
	return n.wait("")
}

// scoreQueue claims every item it may in one call and scores them, up to
// scorer_concurrency at a time, until ctx's deadline; what it claimed but
// did not start is given back to the queue.
func (n *job) scoreQueue(ctx context.Context, scorer score.Scorer) error {
	if ctx.Err() != nil {
		n.log.Warn(stopReason(ctx) + "; the queue waits for the next heartbeat")
		return nil
	}
	c := newClaims(n.queue, claimOwner, n.cfg.Heartbeat.Deadline+n.cfg.Lease, n.now, n.log.Warn)
	if _, err := n.queueItems(); err != nil {
		return err
	}
	// Listings change only with news, which loads the history: a quiet
	// heartbeat finds a withdrawn trace's item noted as it was left, and
	// passes over it without reading the history (queue.Item.Withheld).
	if err := n.noteWithdrawn(); err != nil {
		return err
	}
	if !c.wanted(n.items) {
		return nil // nothing to claim: the queue is not read again
	}
	if err := n.history("queued traces to score"); err != nil {
		return err
	}
	if err := n.noteWithdrawn(); err != nil {
		return err
	}
	items, err := c.claim(n.notWithdrawn)
	if err != nil {
		return fmt.Errorf("claim from queue: %w", err)
	}
	noted := false
	defer func() {
		if !noted {
			n.noteEnded(c.ended, c.dropped)
		}
	}()
	known := n.known()
	g, gctx := errgroup.WithContext(context.WithoutCancel(ctx))
	// The heuristic computes on every core (GOMAXPROCS); more items in
	// flight than cores overlap its validation writes' fsyncs.
	g.SetLimit(max(n.cfg.ScorerConcurrency, 1))
	for p := range n.prepareAll(ctx, gctx, items, c) {
		// A started item is scored to the end, deadline or not, so no
		// half-done work is left behind.
		g.Go(func() error { return n.scoreItem(gctx, scorer, p, c, known) })
	}
	err = g.Wait()
	// The validations go down with one flush before their items are
	// recorded done: if it fails, or the power goes before it, the items
	// stay in progress and the next heartbeat resumes them.
	if err == nil {
		if err := n.snap.Sync(); err != nil {
			return fmt.Errorf("publish validations: %w", err)
		}
	}
	if cerr := c.close(); err == nil {
		err = cerr
	}
	// The items dropped leave the listed queue before their traces come
	// back under the agent that lists them, with the same IDs.
	n.noteEnded(c.ended, c.dropped)
	noted = true
	if err == nil {
		err = n.requeueDropped(c.droppedItems())
	}
	return err
}

// stopReason says why ctx ended: the heartbeat's deadline, or the caller's
// cancel (a signal, named by its cause when the caller gave one).
func stopReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "heartbeat deadline reached"
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return "heartbeat stopped: " + cause.Error()
	}
	return "heartbeat stopped"
}

// prepared is a claimed item with what its scorer needs.
type prepared struct {
	item *queue.Item
	in   *score.Input
}

// prepareAll gets ready, in claim order, the items the deadline (ctx) and
// the publishing budget let start, up to heartbeat.concurrency at a time:
// a trace whose bytes this run did not keep is fetched again meanwhile
// others are scored. Items that end without scoring are finished here.
// The channel is closed once every item started is ready; it holds
// scorer_concurrency items, so no more are fetched ahead than are scored.
func (n *job) prepareAll(ctx, gctx context.Context, items []queue.Item, c *claims) <-chan prepared {
	ready := make(chan prepared, max(n.cfg.ScorerConcurrency, 1))
	go func() {
		defer close(ready)
		var fetches errgroup.Group
		fetches.SetLimit(max(n.cfg.Heartbeat.Concurrency, 1))
		// Once every item started has its bytes, those kept for the
		// others are not scored this heartbeat: they go, and are fetched
		// again when a later one scores them.
		defer n.releaseBodies()
		defer fetches.Wait()
		for i := range items {
			if ctx.Err() != nil {
				// The heartbeat's deadline passed, or a signal stopped it:
				// what is not started yet goes back to the queue for the
				// next heartbeat; nothing is lost.
				n.log.Warn(stopReason(ctx) + "; the rest of the queue waits for the next heartbeat")
				return
			}
			if gctx.Err() != nil {
				return
			}
			if !n.listedByItsPeer(items[i]) {
				n.dropUnlisted(items[i])
				c.drop(&items[i])
				continue
			}
			if !n.notWithdrawn(items[i]) {
				c.hold(&items[i]) // resumed from a run that claimed it before the withdrawal
				continue
			}
			if !n.publishing().take(items[i]) {
				continue // given back to the queue by close, for a later heartbeat
			}
			it := &items[i]
			fetches.Go(func() error {
				if in := n.prepare(gctx, it, c); in != nil {
					ready <- prepared{item: it, in: in}
				}
				return nil
			})
		}
	}()
	return ready
}

// prepare returns what item's scorer needs, or nil when the item ended
// already: its validation is there, or its trace cannot be scored.
func (n *job) prepare(ctx context.Context, item *queue.Item, c *claims) *score.Input {
	rel := path.Join(node.ValidationsDir, validation.FileName(item.Hash))
	if f, ok := n.snap.File(rel); ok {
		// Written by an earlier run that crashed before finishing the item,
		// or by a person: never overwrite, never duplicate. The item ends
		// as the run that wrote the file would have ended it, unless the
		// file validates another trace of the same ID.
		status, reason := existingEnd(rel, f.Data, item.Hash)
		c.finish(item, status, reason)
		return nil
	}
	in, err := n.scoreInput(ctx, item)
	if err != nil {
		c.finish(item, queue.StatusFailed, err.Error())
		return nil
	}
	return in
}

// scoreItem scores one prepared item and finishes it. Problems with the
// scorer fail the item with the reason; only local write failures stop
// the heartbeat.
func (n *job) scoreItem(ctx context.Context, scorer score.Scorer, p prepared, c *claims, known []score.Known) error {
	item, in := p.item, p.in
	finish := func(status, reason string) error { return c.finish(item, status, reason) }
	rel := path.Join(node.ValidationsDir, validation.FileName(item.Hash))
	in.Known = known
	res, err := scorer.Score(ctx, *in)
	if err != nil {
		return finish(queue.StatusFailed, "scorer: "+err.Error())
	}
	v, err := newValidation(n.cfg, *item, res.Scores, res.Notes, n.now)
	if err != nil {
		return finish(queue.StatusFailed, "scorer: "+err.Error())
	}
	err = n.snap.WriteFileUnsynced(rel, v.Format())
	if errors.Is(err, fs.ErrExist) {
		// A person wrote it since the snapshot was taken: theirs stands,
		// if it is a file. A directory or a link at its name publishes
		// nothing, so the trace is not called validated.
		data, err := node.ReadFile(n.opts.Dir, rel, node.MaxFileBytes)
		if err != nil {
			return finish(queue.StatusFailed, fmt.Sprintf("%s is taken and cannot be published (%v): remove it", rel, err))
		}
		return finish(existingEnd(rel, data, item.Hash))
	}
	if err != nil {
		return fmt.Errorf("publish validation: %w", err)
	}
	n.mu.Lock()
	n.sum.ValidationsPublished++
	n.mu.Unlock()
	n.log.Info("validated", "peer", item.From, "url", item.TraceURL, "sha256", item.Hash, "status", v.Result, "total", v.Total)
	return finish(queue.StatusDone, doneReason(v))
}

// existingEnd is how the item of the trace with hash h ends when its
// validation file rel was already there, holding data: done with the
// file's verdict; failed when the file validates another trace whose
// hash has the same ID (validation.ID), since that file is no vote on
// this trace, and the node never overwrites it.
func existingEnd(rel string, data []byte, h manifest.Hash) (status, reason string) {
	v, err := validation.Parse(data)
	if err != nil {
		return queue.StatusDone, "validation already published: " + rel
	}
	if v.TraceHash != h {
		return queue.StatusFailed, fmt.Sprintf("ID clash: %s validates %s", rel, v.TraceHash)
	}
	return queue.StatusDone, doneReason(v)
}

// doneReason is the reason a scored item is done with: its verdict.
func doneReason(v *validation.Validation) string {
	return fmt.Sprintf("%s %d/%d", v.Result, v.Total, validation.MaxTotal)
}

// wait counts the items still queued and says why they wait.
func (n *job) wait(why string) error {
	items, err := n.queueItems()
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Status == queue.StatusQueued || it.Status == queue.StatusInProgress {
			n.sum.Waiting++
		}
	}
	if n.sum.Waiting > 0 {
		n.sum.WaitingReason = why
	}
	return nil
}

// claimOwner is the owner of the heartbeat's queue claims. Heartbeats of one
// node never run at once (they hold the node's lock), so a claim of this
// owner found in progress belongs to a heartbeat that died, and the next
// heartbeat resumes it.
const claimOwner = "heartbeat"
