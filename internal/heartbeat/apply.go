package heartbeat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/validation"
)

// apply folds every poll's result into the state, the ledger and the queue.
// It runs on one goroutine, in peer order, so the outcome is deterministic.
func (n *job) apply(results []*pollResult) error {
	var toQueue []queue.Item
	listings := map[string]*listing{}
	n.brought = tracesBrought(results)
	for _, r := range results {
		n.count(r)
		c := r.cursor
		c.Agent = r.peer.name
		*n.state.Cursor(r.peer.url) = c
		n.recordUnfetchables(r.peer, r.records)
		n.misnamed, n.heldDisputes = 0, 0
		for _, f := range r.files {
			item, ok := n.recordFile(r.peer, f)
			if ok {
				toQueue = append(toQueue, item)
			}
			n.keepBody(f, ok)
		}
		if n.misnamed > 0 {
			n.log.Warn("validations name another validator; recorded under the peer's name", "peer", r.peer.name, "url", r.peer.url, "count", n.misnamed)
		}
		if n.heldDisputes > 0 {
			n.holdBack(r.peer, n.heldDisputes, fmt.Sprintf("disputes not recorded: %d disputes by this peer recorded, the most we keep of one peer", maxDisputesPerPeer))
		}
		n.recordMismatches(r.peer, r.mismatches)
		if r.listed != nil {
			listings[r.peer.url] = r.listed
		}
		n.learn(r)
	}
	toQueue, err := n.unqueueNotTraces(toQueue)
	if err != nil {
		return err
	}
	// Every copy recorded was taken; what is left, let go of or of files
	// not recorded, goes with the map.
	n.held = nil
	n.withdraw(listings)
	if err := n.giveWay(listings); err != nil {
		return err
	}
	// A quiet heartbeat brought nothing new: what takeDownDisputed and
	// keepCopies compute from the history stands as last computed.
	if n.quiet == nil {
		if err := n.takeDownDisputed(); err != nil {
			return err
		}
		n.keepCopies()
	}
	toQueue = n.assigned(toQueue)
	var reserve []queue.Item
	if n.quiet == nil {
		// A quiet heartbeat runs only while no reserve trace the queue
		// lacks is due (derived.ReserveDue).
		var err error
		if reserve, err = n.reserveItems(); err != nil {
			return err
		}
		toQueue = append(toQueue, reserve...)
	}
	toQueue, err = n.admit(toQueue)
	if err != nil {
		return err
	}
	added, err := n.queue.Enqueue(toQueue...)
	refused, itemsOnly := queue.ItemErrors(err)
	if !itemsOnly {
		return fmt.Errorf("queue traces for validation: %w", err)
	}
	n.logRefused(refused)
	n.sum.Queued = added
	n.sum.Reserve = countTaken(reserve, toQueue, refused)
	return nil
}

// countTaken counts the items of want that the queue took: admitted (in
// admitted) and not refused. An item the queue's bounds held back is
// counted in the summary's held back, not here.
func countTaken(want, admitted []queue.Item, refused []*queue.ItemError) int {
	n := 0
	for _, it := range want {
		if slices.ContainsFunc(admitted, func(a queue.Item) bool { return a.Hash == it.Hash }) &&
			!slices.ContainsFunc(refused, func(e *queue.ItemError) bool { return e.Hash == it.Hash }) {
			n++
		}
	}
	return n
}

// logRefused reports the items the queue refused while it kept the rest:
// one bad item never stops a heartbeat. The trace stays in the ledger; it
// is not queued again, since its hash is seen. Logged like a peer's
// problems, maxProblemLogs lines and then a count.
func (n *job) logRefused(refused []*queue.ItemError) {
	for i, e := range refused {
		if i == maxProblemLogs {
			n.log.Warn("more traces not queued", "count", len(refused)-i)
			return
		}
		n.log.Warn("trace not queued", "sha256", e.Hash, "id", e.ID, "reason", e.Err.Error())
	}
}

func (n *job) count(r *pollResult) {
	s := &n.sum
	switch r.outcome {
	case outcomeSkipped:
		s.PeersSkipped++
		if r.cursor.FailureCount == 0 {
			s.PeersQuiet++
		}
		return
	case outcomeInterrupted:
		return
	case outcomeRateLimited:
		s.PeersRateLimited++
	case outcomeFailed, outcomeGone:
		s.PeersFailed++
		s.Failures = append(s.Failures, report.Failure{Peer: r.peer.name, URL: r.peer.url, Error: r.err.Error()})
	}
	s.PeersPolled++
	if r.cursor.Status == state.StatusUnreachable || r.cursor.Status == state.StatusGone {
		s.Unreachable = append(s.Unreachable, r.peer.name)
	}
	if len(r.files) > 0 {
		s.PeersWithNew++
	}
	if r.activity.Spike {
		s.Spikes = append(s.Spikes, report.Spike{Peer: r.peer.name, URL: r.peer.url, NewToday: r.activity.Today, DailyAvg7d: r.activity.DailyAvg})
	}
	s.Verified += len(r.files)
	s.Rejected += len(r.mismatches) + len(r.rejected)
	s.Duplicates += r.dups
	s.Gaps += r.gapCount
	for _, m := range r.mismatches {
		s.HashMismatches = append(s.HashMismatches, report.Mismatch{
			Peer: r.peer.name, URL: m.url, Seq: m.entry.Seq, Claimed: m.entry.Hash, Served: m.served,
		})
	}
}

// recordFile records a verified file and reports the queue item to add when
// it is somebody else's pending trace.
func (n *job) recordFile(p peer, f fetched) (queue.Item, bool) {
	n.state.MarkSeenFrom(p.url, f.entry.Hash, n.now)
	if f.kind == node.KindTrace && n.publishedByAnother(p.url, f.entry.Hash) {
		// Only a trace is a copy of a trace (docs/protocol.md §6.4):
		// another agent's validation or dispute listed as p's trace is
		// neither p's trace nor work for us to score (docs/decisions.md,
		// "Copies").
		n.log.Warn("not a trace: another agent publishes these bytes as its validation or dispute", "peer", p.name, "url", p.url,
			"seq", f.entry.Seq, "sha256", f.entry.Hash)
		return queue.Item{}, false
	}
	if old := n.ledger.Traces[f.entry.Hash]; f.kind == node.KindTrace && old != nil && old.AgentURL != p.url && old.Verified {
		// The same bytes from a second agent are its file too, recorded
		// beside the first listing; the trace is queued once, by hash
		// (docs/decisions.md, "Copies"). Only a trace: a validation or
		// dispute is recorded per publisher whatever lists its bytes as a
		// trace.
		n.recordCopy(p, f, old)
		return queue.Item{}, false
	}
	if f.kind == node.KindDispute {
		// A peer's dispute is its evidence about a third agent: neither a
		// trace to score nor a vote (docs/decisions.md, "What a row is"),
		// but a record SIGNAL weighs under mesh-2026-3, and reason enough
		// to stop republishing that trace's text.
		n.recordDispute(p, f)
		return queue.Item{}, false
	}
	if f.kind == node.KindKey {
		// A key statement of the peer's signed log: evidence for a reader
		// of logs (translog.VerifyRotationEntry), never a trace to score.
		return queue.Item{}, false
	}
	if f.kind == node.KindValidation {
		n.sum.NewValidations++
		if !n.recordValidation(p, f) {
			n.misnamed++
		}
		return queue.Item{}, false
	}
	n.sum.NewTraces++
	t := n.traceRecord(p, f)
	// Another agent's row without a file column is no claim on these
	// bytes: the verified record takes its place (docs/decisions.md,
	// "Copies").
	n.ledger.Supersede(t)
	n.keepCopy(p, t.Hash, f)
	if !n.queueable(p, t.Hash, t.Status) {
		return queue.Item{}, false
	}
	return queue.Item{
		ID: validation.ID(t.Hash), Hash: t.Hash, From: p.name, FromURL: p.url, TraceURL: t.URL,
		Type: t.Type, Title: t.Title, Seq: t.Seq, Submitted: t.Submitted, QueuedAt: n.now, UpdatedAt: n.now,
	}, true
}

// traceRecord is the ledger's record of a verified trace f that peer p
// lists.
func (n *job) traceRecord(p peer, f fetched) *ledger.Trace {
	t := &ledger.Trace{
		Agent: p.name, AgentURL: p.url, Seq: f.entry.Seq, Hash: f.entry.Hash, File: f.entry.File,
		URL: f.url, Type: f.entry.Type, Status: manifest.NormalizeStatus(f.entry.Status),
		Submitted: f.entry.Submitted, FirstSeen: n.firstSeenOf(f.entry.Hash), Verified: true,
	}
	if f.trace != nil {
		t.Title, t.Category = f.trace.Title, f.trace.Category
		if t.Type == "" {
			t.Type = f.trace.Type
		}
		for _, c := range f.trace.Cites {
			t.Cites = append(t.Cites, fmt.Sprintf("%s/%d", c.Agent, c.Seq))
		}
		t.Fingerprint = f.fingerprint
	}
	t.Verdicts = f.verdicts
	return t
}

// recordCopy records a trace whose bytes the trace first, of another
// agent, already has: the file of the agent that lists it, flagged as a
// copy in the ledger and the summary. Which agent published it first
// nothing public says (until signed logs), so neither record is dropped.
func (n *job) recordCopy(p peer, f fetched, first *ledger.Trace) {
	n.sum.NewTraces++
	n.ledger.AddCopy(n.traceRecord(p, f))
	n.sum.Copies = append(n.sum.Copies, report.Copy{Peer: p.name, URL: p.url, Seq: f.entry.Seq, Hash: f.entry.Hash, Of: first.Agent, OfURL: first.AgentURL})
	n.log.Warn("copy: another agent lists the same bytes", "peer", p.name, "url", p.url, "seq", f.entry.Seq, "sha256", f.entry.Hash, "of", first.AgentURL)
}

// queueable reports whether a trace of peer p with this hash and status
// goes into the queue for us to validate: somebody else's pending trace.
func (n *job) queueable(p peer, hash manifest.Hash, status manifest.Status) bool {
	return status == manifest.StatusPending && !n.own[hash] && p.url != n.cfg.URL && !strings.EqualFold(p.name, n.cfg.Agent)
}

// recordValidation records a peer's validation under the name bound to the
// URL it was fetched from: the validator a file names is only a claim, and
// a peer naming another agent there would lend it its own verdicts.
func (n *job) recordValidation(p peer, f fetched) bool {
	v := f.val
	claimed := v.Validator == "" || roster.Fold(v.Validator) == roster.Fold(p.name)
	lv := ledger.ValidationOf(v)
	lv.Validator, lv.ValidatorURL, lv.SourceURL, lv.SourceHash = p.name, p.url, f.url, f.entry.Hash
	n.ledger.AddValidation(&lv)
	if namesTraceHash(&lv) {
		n.notePublished(f.entry.Hash, p.url)
		n.undoTraceListings(p, f.entry.Hash)
	}
	return claimed
}

// recordMismatches records each hash mismatch as a rejection and a dispute
// to publish, until the peer has maxDisputesPerPeer disputes; the rest are
// passed over and the summary says how many.
func (n *job) recordMismatches(p peer, ms []mismatch) {
	held := 0
	for _, m := range ms {
		if n.disputesAbout(p.url) >= maxDisputesPerPeer {
			held++
			continue
		}
		n.disputeCount[p.url]++
		n.ledger.AddRejection(m.url, &ledger.Rejection{
			Agent: p.name, AgentURL: p.url, Seq: m.entry.Seq,
			ClaimedHash: m.entry.Hash, ServedHash: m.served, At: n.now,
		})
		n.disputes = append(n.disputes, n.disputeOf(p, m))
	}
	if held > 0 {
		n.holdBack(p, held, fmt.Sprintf("hash mismatches not disputed: %d disputes of this peer published, the most we publish of one peer", maxDisputesPerPeer))
	}
}

// disputesAbout counts the disputes we published about the peer at url,
// and those this run added; the published ones are read from the
// snapshot's disputes/ once a heartbeat, when a mismatch first asks.
func (n *job) disputesAbout(url string) int {
	if n.disputeCount == nil {
		n.disputeCount = map[string]int{}
		for _, d := range n.ourDisputes() {
			n.disputeCount[d.AgentURL]++
		}
	}
	return n.disputeCount[url]
}

// ourDisputes is our dispute files that parse, as the snapshot holds
// them: read and parsed once a heartbeat, when a mismatch first asks
// (disputesAbout, publishDisputes).
func (n *job) ourDisputes() []*dispute.Dispute {
	if n.ourDisputesRead {
		return n.ourDisputesParsed
	}
	n.ourDisputesRead = true
	for _, f := range n.snap.Files(node.DisputesDir) {
		if f.Err != nil {
			continue
		}
		if d, err := dispute.Parse(f.Data); err == nil {
			n.ourDisputesParsed = append(n.ourDisputesParsed, d)
		}
	}
	return n.ourDisputesParsed
}

// holdBack logs and reports count items of peer p that a bound kept back.
func (n *job) holdBack(p peer, count int, why string) {
	n.log.Warn("held back", "peer", p.name, "url", p.url, "count", count, "reason", why)
	n.mu.Lock()
	n.sum.HeldBack = append(n.sum.HeldBack, report.HeldBack{Peer: p.name, URL: p.url, Count: count, Reason: why})
	n.mu.Unlock()
}

// recordUnfetchables keeps rows of a legacy layout (no file column): they
// count in the ledger but can never be verified, so a peer keeps at most
// maxUnverifiedPerPeer of them there; the rest are passed over.
func (n *job) recordUnfetchables(p peer, rows []manifest.Entry) {
	if len(rows) == 0 {
		return
	}
	have := 0
	for _, t := range n.ledger.Traces {
		if t.AgentURL == p.url && !t.Verified {
			have++
		}
	}
	skipped := 0
	for _, e := range rows {
		if e.Hash == "" || n.ledger.Traces[e.Hash] != nil || node.KindOf(e) != node.KindTrace {
			// A validation or dispute row without a file says nothing that
			// could be counted: it names no trace and cannot be read.
			continue
		}
		if have >= maxUnverifiedPerPeer {
			skipped++
			continue
		}
		have++
		n.ledger.AddTrace(&ledger.Trace{
			Agent: p.name, AgentURL: p.url, Seq: e.Seq, Hash: e.Hash, Type: e.Type, Category: e.Category,
			Title: e.Title, Status: manifest.NormalizeStatus(e.Status), Submitted: e.Submitted, FirstSeen: n.firstSeenOf(e.Hash),
		})
	}
	if skipped > 0 {
		n.log.Warn("rows without a file column passed over: the peer has as many unverifiable rows as the ledger keeps",
			"peer", p.name, "url", p.url, "count", skipped, "kept", maxUnverifiedPerPeer)
	}
}
