package heartbeat

import (
	"context"
	"fmt"

	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/trace"
)

// scoreInput gathers what a scorer needs. Bytes fetched in this run are
// used as they are; otherwise the trace is fetched again and its hash
// verified again, since peers' content is not kept between runs.
func (n *job) scoreInput(ctx context.Context, item *queue.Item) (*score.Input, error) {
	f, ok := n.takeBody(item.Hash)
	if !ok {
		got, err := verifierOf(n.client, n.peerAt(item.FromURL)).Fetch(ctx,
			integrity.Claim{Base: item.FromURL, File: item.TraceURL, Hash: item.Hash, MaxBytes: n.cfg.Limits.TraceBytes})
		if err != nil {
			return nil, fmt.Errorf("fetch trace again: %w", err)
		}
		t, err := trace.Parse(got.Body)
		if err != nil {
			return nil, fmt.Errorf("parse trace: %w", err)
		}
		f = fetched{url: got.URL, raw: got.Body, trace: t}
	}
	if f.trace == nil {
		return nil, fmt.Errorf("trace metadata unreadable")
	}
	return &score.Input{Record: item.Record(), Raw: f.raw, Trace: f.trace, Now: n.now}, nil
}

// keepBody keeps the bytes of f, a verified file just applied, for
// scoring when the poll kept them (handOn) and f was queued; otherwise it
// lets them go.
func (n *job) keepBody(f fetched, queued bool) {
	if f.raw == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, dup := n.fetched[f.entry.Hash]; queued && !dup {
		n.fetched[f.entry.Hash] = f
		return
	}
	n.budget.handedOn(int64(len(f.raw)))
}

// takeBody hands the kept bytes of the trace with this hash to scoring,
// once: they leave the heartbeat's budget as they leave its keeping.
func (n *job) takeBody(hash manifest.Hash) (fetched, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f, ok := n.fetched[hash]
	if ok {
		delete(n.fetched, hash)
		n.budget.handedOn(int64(len(f.raw)))
	}
	return f, ok
}

// dropBodies lets go of the bytes kept for traces not scored
// (releaseBodies), and tells Options.onBudget what the heartbeat holds
// now and held at most.
func (n *job) dropBodies() {
	n.releaseBodies()
	if n.opts.onBudget != nil {
		n.opts.onBudget(n.budget.inUse())
	}
}

// releaseBodies lets go of the bytes kept for traces not scored: their
// items wait in the queue, and are fetched again when scored.
func (n *job) releaseBodies() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for h, f := range n.fetched {
		n.budget.handedOn(int64(len(f.raw)))
		delete(n.fetched, h)
	}
}

// known lists the fingerprints of the traces seen so far, for the
// uniqueness dimension, which skips the scored trace's own.
func (n *job) known() []score.Known { return score.KnownOf(n.ledger) }
