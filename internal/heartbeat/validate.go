package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// ValidationsDir holds the node's validations of others' traces.
const ValidationsDir = "validations"

// validate works the queue until ctx's deadline: with standing and a scorer that needs no
// person, every queued trace is claimed, scored and its validation written;
// otherwise the items wait, with the reason shown, and the manual scorer's
// items get the heuristic's suggestion for the person who will score them.
func (n *node) validate(ctx context.Context) error {
	scorer, err := score.New(n.cfg.Scorer, n.cfg.ScorerCommand, n.cfg.ScorerTimeout)
	if err != nil {
		return fmt.Errorf("scorer: %w", err)
	}
	if ok, why := n.hasStanding(); !ok {
		return n.wait(why)
	}
	if n.cfg.Scorer == "manual" {
		return n.suggest(context.WithoutCancel(ctx))
	}
	owner := claimOwner
	for {
		if ctx.Err() != nil {
			// The heartbeat's deadline passed: what is not claimed yet
			// stays queued for the next heartbeat; nothing is lost.
			n.log.Warn("heartbeat deadline reached; the rest of the queue waits for the next heartbeat")
			break
		}
		item, err := n.queue.Resume(owner, n.now, n.cfg.Lease)
		if err == nil && item == nil {
			item, err = n.queue.Claim(owner, n.now, n.cfg.Lease, nil)
		}
		if err != nil {
			return fmt.Errorf("claim from queue: %w", err)
		}
		if item == nil {
			break
		}
		// A claimed item is scored to the end, deadline or not, so no
		// half-done work is left behind.
		if err := n.scoreItem(context.WithoutCancel(ctx), scorer, item, owner); err != nil {
			return err
		}
	}
	return n.wait("")
}

// scoreItem scores one claimed item and finishes it. Problems with the
// trace or the scorer fail the item with the reason; only local write
// failures stop the heartbeat.
func (n *node) scoreItem(ctx context.Context, scorer score.Scorer, item *queue.Item, owner string) error {
	finish := func(status, reason string) error {
		err := n.queue.Finish(item.ID, owner, item.Version, status, reason, n.now)
		if errors.Is(err, queue.ErrConflict) {
			n.log.Warn("queue item taken over by another worker", "peer", item.From, "sha256", item.Hash)
			return nil
		}
		return err
	}
	rel := path.Join(ValidationsDir, validation.FileName(item.Hash))
	if data, err := os.ReadFile(n.path(rel)); err == nil {
		// Written by an earlier run that crashed before finishing the item,
		// or by a person: never overwrite, never duplicate. The item ends
		// as the run that wrote the file would have ended it.
		reason := "validation already published: " + rel
		if v, err := validation.Parse(data); err == nil {
			reason = doneReason(v)
		}
		return finish(queue.StatusDone, reason)
	}
	in, err := n.scoreInput(ctx, item)
	if err != nil {
		return finish(queue.StatusFailed, err.Error())
	}
	res, err := scorer.Score(ctx, *in)
	if err != nil {
		return finish(queue.StatusFailed, "scorer: "+err.Error())
	}
	v := &validation.Validation{
		Validator: n.cfg.Agent, ValidatorURL: n.cfg.URL, TraceURL: item.TraceURL, TraceHash: item.Hash,
		ValidatedAt: n.now, Scores: res.Scores, HasScores: true, Notes: res.Notes,
	}
	v.Total = res.Scores.Total()
	v.Result = validation.ResultFor(v.Total)
	if err := atomicfile.WriteFile(n.path(rel), v.Format(), 0o644); err != nil {
		return fmt.Errorf("publish validation: %w", err)
	}
	n.sum.ValidationsPublished++
	n.log.Info("validated", "peer", item.From, "url", item.TraceURL, "sha256", item.Hash, "status", v.Result, "total", v.Total)
	return finish(queue.StatusDone, doneReason(v))
}

// doneReason is the reason a scored item is done with: its verdict.
func doneReason(v *validation.Validation) string {
	return fmt.Sprintf("%s %d/%d", v.Result, v.Total, validation.MaxTotal)
}

// scoreInput gathers what a scorer needs. Bytes fetched in this run are
// used as they are; otherwise the trace is fetched again and its hash
// verified again, since peers' content is not kept between runs.
func (n *node) scoreInput(ctx context.Context, item *queue.Item) (*score.Input, error) {
	f, ok := n.fetched[item.Hash]
	if !ok {
		u, err := fetch.ResolveWithin(item.FromURL, relativeTo(item.FromURL, item.TraceURL))
		if err != nil {
			return nil, fmt.Errorf("trace url: %w", err)
		}
		resp, err := n.client.Get(ctx, fetch.Request{URL: u, MaxBytes: n.cfg.Limits.TraceBytes})
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
		f = fetched{url: u, raw: resp.Body, trace: t, entry: manifest.Entry{
			Seq: item.Seq, Hash: item.Hash, Type: item.Type, Submitted: item.Submitted, Status: manifest.StatusPending,
		}}
	}
	if f.trace == nil {
		return nil, fmt.Errorf("trace metadata unreadable")
	}
	return &score.Input{
		Hash: item.Hash, URL: item.TraceURL, Agent: item.From, AgentURL: item.FromURL,
		Entry: f.entry, Raw: f.raw, Trace: f.trace, Now: n.now, Known: n.known(item.Hash),
	}, nil
}

// known lists the fingerprints of the traces seen so far, for the
// uniqueness dimension.
func (n *node) known(except string) []score.Known {
	out := make([]score.Known, 0, len(n.ledger.Traces))
	for _, t := range n.ledger.SortedTraces() {
		if t.Hash == except || t.Fingerprint == "" {
			continue
		}
		fp, err := strconv.ParseUint(t.Fingerprint, 16, 64)
		if err != nil {
			continue
		}
		out = append(out, score.Known{Hash: t.Hash, Agent: t.Agent, Fingerprint: fp})
	}
	return out
}

// suggest stores the heuristic's scores on the items a person will score,
// so `meshnode score --pr` can prefill its drafts.
func (n *node) suggest(ctx context.Context) error {
	h, err := score.New("heuristic", nil, 0)
	if err != nil {
		return err
	}
	items, err := n.queue.List()
	if err != nil {
		return fmt.Errorf("read queue: %w", err)
	}
	for _, it := range items {
		if it.Status != queue.StatusQueued || it.Suggested != nil {
			continue
		}
		in, err := n.scoreInput(ctx, &it)
		if err != nil {
			n.log.Warn("no suggestion for queued trace", "peer", it.From, "sha256", it.Hash, "err", err.Error())
			continue
		}
		res, err := h.Score(ctx, *in)
		if err != nil {
			continue
		}
		reasons := map[string][]string{}
		for i, d := range validation.Dimensions {
			reasons[d] = res.Reasons[i]
		}
		if err := n.queue.Suggest(it.ID, res.Scores, reasons, res.Notes, n.now); err != nil {
			return fmt.Errorf("store suggestion: %w", err)
		}
	}
	return n.wait("waiting for a person: run 'meshnode score --pr' or edit validations/ by hand")
}

// wait counts the items still queued and says why they wait.
func (n *node) wait(why string) error {
	items, err := n.queue.List()
	if err != nil {
		return fmt.Errorf("read queue: %w", err)
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

// relativeTo returns u relative to base when u lies under it, else u.
func relativeTo(base, u string) string {
	if len(u) > len(base) && u[:len(base)] == base {
		return u[len(base):]
	}
	return u
}
