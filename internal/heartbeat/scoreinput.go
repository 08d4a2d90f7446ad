package heartbeat

import (
	"context"
	"fmt"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/trace"
)

// scoreInput gathers what a scorer needs. Bytes fetched in this run are
// used as they are; otherwise the trace is fetched again and its hash
// verified again, since peers' content is not kept between runs.
func (n *job) scoreInput(ctx context.Context, item *queue.Item) (*score.Input, error) {
	f, ok := n.fetched[item.Hash]
	if !ok {
		u, err := fetch.ResolveWithin(item.FromURL, relativeTo(item.FromURL, item.TraceURL))
		if err != nil {
			return nil, fmt.Errorf("trace url: %w", err)
		}
		resp, err := n.client.Get(ctx, n.peerAt(item.FromURL).request(u, n.cfg.Limits.TraceBytes))
		if err != nil {
			return nil, fmt.Errorf("fetch trace again: %w", err)
		}
		if got := manifest.HashBytes(resp.Body); got != item.Hash {
			return nil, fmt.Errorf("trace changed since it was queued: hash %s, want %s", got, item.Hash)
		}
		t, err := trace.Parse(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("parse trace: %w", err)
		}
		f = fetched{url: u, raw: resp.Body, trace: t}
	}
	if f.trace == nil {
		return nil, fmt.Errorf("trace metadata unreadable")
	}
	return &score.Input{Record: item.Record(), Raw: f.raw, Trace: f.trace, Now: n.now}, nil
}

// known lists the fingerprints of the traces seen so far, for the
// uniqueness dimension, which skips the scored trace's own.
func (n *job) known() []score.Known { return score.KnownOf(n.ledger) }

// relativeTo returns u relative to base when u lies under it, else u.
func relativeTo(base, u string) string {
	if len(u) > len(base) && u[:len(base)] == base {
		return u[len(base):]
	}
	return u
}
