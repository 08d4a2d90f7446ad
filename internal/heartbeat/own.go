package heartbeat

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/ledger"
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
// disputed agent (disputeFile).
func (n *job) publishDisputes() error {
	for _, d := range n.disputes {
		rel, ok := n.disputeFile(d)
		if !ok {
			continue
		}
		err := n.snap.WriteFile(rel, d.Format())
		if errors.Is(err, fs.ErrExist) {
			continue // written since the snapshot was taken
		}
		if err != nil {
			return fmt.Errorf("publish dispute: %w", err)
		}
		n.sum.DisputesPublished++
	}
	return nil
}

// disputeFile is where d is published: FileName of its claimed hash, or,
// once that holds a dispute of another claim (another agent's row claimed
// the hash first, or a claimed hash with the same first 12 hex digits),
// FileNameAbout the agent d is about, so that no agent's row spends
// another's dispute nor one claim another's. ok is false when a dispute
// of the claim about the same agent is published already, or when both
// names are taken.
func (n *job) disputeFile(d *dispute.Dispute) (rel string, ok bool) {
	rel = path.Join(node.DisputesDir, dispute.FileName(d.ClaimedHash))
	f, taken := n.snap.File(rel)
	if !taken {
		return rel, true
	}
	if f.Err == nil {
		if first, err := dispute.Parse(f.Data); err == nil && sameClaim(first, d) {
			return "", false
		}
	}
	rel = path.Join(node.DisputesDir, dispute.FileNameAbout(d.ClaimedHash, d.AgentURL))
	if _, taken := n.snap.File(rel); taken {
		return "", false
	}
	return rel, true
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
	statuses, err := n.ownStatuses()
	if err != nil {
		return err
	}
	refresh := presence.RefreshDue(n.snap.Manifest.Updated, n.now)
	res, err := publish.Plan(n.snap, publish.Options{
		Agent: n.cfg.Agent, URL: n.cfg.URL, Now: n.now,
		Statuses: statuses, RefreshUpdated: refresh,
		Window: n.opts.ManifestWindow, Chunk: n.opts.ManifestChunk, MaxBytes: n.cfg.Limits.ManifestBytes,
	})
	if err != nil {
		return err
	}
	lu, err := n.planLog(n.snap.RowsWith(res.Manifest, res.Archived))
	if err != nil {
		return err
	}
	if res.Changed, err = n.snap.WriteManifest(res.Manifest, res.Archived); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
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
