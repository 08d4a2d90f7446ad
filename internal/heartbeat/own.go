package heartbeat

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/signal"
)

// disputeOf is the dispute this node publishes of a hash mismatch of p's
// (docs/protocol.md §7.4), naming p by the URL it was polled at.
func (n *job) disputeOf(p peer, m mismatch) *dispute.Dispute {
	return &dispute.Dispute{
		Reporter: n.cfg.Agent, ReporterURL: n.cfg.URL, Agent: p.name, AgentURL: p.url,
		FileURL: m.url, Seq: m.entry.Seq, ClaimedHash: m.entry.Hash, ServedHash: m.served, ObservedAt: n.now,
		Notes: "The bytes served at file_url do not hash to the sha256 the agent's MANIFEST.md lists for this seq.",
	}
}

// publishDisputes writes a MANIFEST-DISPUTE file for every hash mismatch
// seen in this run (apply collects them), once per claimed hash and
// disputed agent: a claim one of our dispute files holds already, under
// any name, is passed over.
func (n *job) publishDisputes() error {
	if len(n.disputes) == 0 {
		return nil
	}
	published := n.publishedDisputes()
	for _, d := range n.disputes {
		if slices.ContainsFunc(published[d.ClaimedHash], func(p *dispute.Dispute) bool { return sameClaim(p, d) }) {
			continue
		}
		err := n.snap.WriteFile(n.disputeFile(d), d.Format())
		if errors.Is(err, fs.ErrExist) {
			continue // written since the snapshot was taken
		}
		if err != nil {
			return fmt.Errorf("publish dispute: %w", err)
		}
		published[d.ClaimedHash] = append(published[d.ClaimedHash], d)
		n.sum.DisputesPublished++
	}
	return nil
}

// publishedDisputes is our dispute files that parse (ourDisputes), by
// claimed hash.
func (n *job) publishedDisputes() map[manifest.Hash][]*dispute.Dispute {
	out := map[manifest.Hash][]*dispute.Dispute{}
	for _, d := range n.ourDisputes() {
		out[d.ClaimedHash] = append(out[d.ClaimedHash], d)
	}
	return out
}

// disputeFile is where d is published: the first of its names
// (dispute.FileNameAt) that no file of ours takes. FileName of its
// claimed hash is taken by a dispute of another claim once another
// agent's row claimed the hash first, or a claimed hash with the same
// first 12 hex digits was disputed; so no agent's row spends another's
// dispute, nor one claim another's, however many share the 12 digits.
func (n *job) disputeFile(d *dispute.Dispute) string {
	for i := 0; ; i++ {
		rel := path.Join(node.DisputesDir, dispute.FileNameAt(d.ClaimedHash, d.AgentURL, i))
		if _, taken := n.snap.File(rel); !taken {
			return rel
		}
	}
}

// sameClaim reports whether our published dispute a is of d's claim: the
// same claimed hash, about the same agent (signal.Names: by its agent_url
// in any spelling, as the node wrote it when it polled the agent at an
// earlier spelling of its URL).
func sameClaim(a, d *dispute.Dispute) bool {
	return a.ClaimedHash == d.ClaimedHash && signal.Names(ledger.DisputeOf(a), d.Agent, d.AgentURL)
}

// publish writes disputes, resolves our traces' statuses and regenerates
// MANIFEST.md with everything new.
func (n *job) publish() error {
	if n.quiet != nil {
		// Nothing published, nothing new: the log stays as the derived
		// record's inputs hold it, and MANIFEST.md too but for its
		// presence refresh.
		n.quietSummary()
		return n.quietRefresh()
	}
	if err := n.publishDisputes(); err != nil {
		return err
	}
	refresh := presence.RefreshDue(n.snap.Manifest.Updated, n.now)
	res, err := n.planManifest(refresh)
	if err != nil {
		return err
	}
	lu, err := n.planLog(n.snap.RowsWith(res.Manifest, res.Archived))
	if err != nil {
		return err
	}
	planned := n.signalAtPlan(res)
	if res.Changed, err = n.snap.WriteManifest(res.Manifest, res.Archived); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	// The snapshot's rows are now res's: SIGNAL computed from them is the
	// node's as it stands, for what follows (saveDerived) to use.
	n.relabel(planned, n.signalAt())
	logChanged, err := lu.Write(n.snap.Dir)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	res.Changed = res.Changed || logChanged
	for _, h := range res.Held {
		n.log.Warn("not published", "file", h.File, "reason", h.Reason)
		n.sum.Held = append(n.sum.Held, report.Held{File: h.File, Reason: h.Reason})
	}
	for _, e := range res.NewFiles {
		if node.KindOf(e) == node.KindTrace {
			n.sum.TracesPublished++
		}
	}
	n.sum.Changed = n.sum.Changed || res.Changed
	n.refresh = refresh
	return nil
}

// planManifest plans our MANIFEST.md with our traces' statuses resolved
// from the files as they stand once it is written: a row's status is a
// function of the public files. A trace this heartbeat publishes is among
// them, and the ledger may hold peers' validations of it already (passes
// of a trace whose file was served before its row); resolved from the
// rows before it, it would be written pending, and the heartbeats that
// find nothing new after it would carry it so (quietRefresh). So a plan
// that publishes a trace is made again with the statuses its own rows
// give (docs/decisions.md, "Our new rows' statuses"), from SIGNAL over
// them: the report over the rows before, extended with the new rows'
// results where they provably change nothing else (reportOf,
// signal.Extend), else computed again.
func (n *job) planManifest(refresh bool) (*publish.Result, error) {
	o := publish.Options{
		Agent: n.cfg.Agent, URL: n.cfg.URL, Now: n.now, RefreshUpdated: refresh,
		Window: n.opts.ManifestWindow, Chunk: n.opts.ManifestChunk, MaxBytes: n.cfg.Limits.ManifestBytes,
	}
	var err error
	if o.Statuses, err = n.ownStatuses(nil); err != nil {
		return nil, err
	}
	res, err := publish.Plan(n.snap, o)
	if err != nil || !publishesTrace(res) {
		return res, err
	}
	if o.Statuses, err = n.ownStatuses(res); err != nil {
		return nil, err
	}
	again, err := publish.Plan(n.snap, o)
	if err != nil {
		return nil, err
	}
	// The same rows, statuses aside: SIGNAL from the first plan's rows is
	// SIGNAL from these.
	n.relabel(n.signalAtPlan(res), n.signalAtPlan(again))
	return again, nil
}

// publishesTrace reports whether res publishes a trace of ours.
func publishesTrace(res *publish.Result) bool {
	return slices.ContainsFunc(res.NewFiles, func(e manifest.Entry) bool { return node.KindOf(e) == node.KindTrace })
}

// quietRefresh refreshes our MANIFEST.md's `updated:` time when it is due,
// in a heartbeat that uses its derived record: nothing else of it can
// have changed (the record's inputs digest the same, and nothing new was
// found), so the rows are carried as they are, without reading the
// history, and the bytes are those a heartbeat reading it would write.
func (n *job) quietRefresh() error {
	if !presence.RefreshDue(n.snap.Manifest.Updated, n.now) {
		return nil
	}
	changed, err := n.snap.WriteManifest(publish.Refresh(n.snap.Manifest, n.now), nil)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	n.sum.Changed = n.sum.Changed || changed
	n.refresh = true
	return nil
}
