package heartbeat

import (
	"context"
	"fmt"

	"github.com/meshnode/meshnode/internal/integrity"
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

// known lists the fingerprints of the traces seen so far, for the
// uniqueness dimension, which skips the scored trace's own.
func (n *job) known() []score.Known { return score.KnownOf(n.ledger) }
