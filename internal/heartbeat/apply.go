package heartbeat

import (
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/validation"
)

// apply folds every poll's result into the state, the ledger and the queue.
// It runs on one goroutine, in peer order, so the outcome is deterministic.
func (n *node) apply(results []*pollResult) error {
	var toQueue []queue.Item
	for _, r := range results {
		n.count(r)
		c := r.cursor
		c.Agent = r.peer.name
		*n.state.Cursor(r.peer.url) = c
		for _, e := range r.records {
			n.recordUnfetchable(r.peer, e)
		}
		for _, f := range r.files {
			if item, ok := n.recordFile(r.peer, f); ok {
				toQueue = append(toQueue, item)
			}
		}
		for _, m := range r.mismatches {
			n.ledger.AddRejection(m.url, &ledger.Rejection{
				Agent: r.peer.name, AgentURL: r.peer.url, Seq: m.entry.Seq,
				ClaimedHash: m.entry.Hash, ServedHash: m.served, At: n.now,
			})
		}
		n.learn(r)
	}
	added, err := n.queue.Enqueue(toQueue...)
	if err != nil {
		return fmt.Errorf("queue traces for validation: %w", err)
	}
	n.sum.Queued = added
	return nil
}

func (n *node) count(r *pollResult) {
	s := &n.sum
	switch r.outcome {
	case outcomeSkipped:
		s.PeersSkipped++
		return
	case outcomeInterrupted:
		return
	case outcomeRateLimited:
		s.PeersRateLimited++
	case outcomeFailed, outcomeGone:
		s.PeersFailed++
		s.Failures = append(s.Failures, Failure{Peer: r.peer.name, URL: r.peer.url, Error: r.err.Error()})
	}
	s.PeersPolled++
	if r.cursor.Status == state.StatusUnreachable || r.cursor.Status == state.StatusGone {
		s.Unreachable = append(s.Unreachable, r.peer.name)
	}
	if len(r.files) > 0 {
		s.PeersWithNew++
	}
	s.Verified += len(r.files)
	s.Rejected += len(r.mismatches) + len(r.rejected)
	s.Duplicates += r.dups
	s.Gaps += r.gapCount
	for _, m := range r.mismatches {
		s.HashMismatches = append(s.HashMismatches, Mismatch{
			Peer: r.peer.name, URL: m.url, Seq: m.entry.Seq, Claimed: m.entry.Hash, Served: m.served,
		})
	}
}

// recordFile records a verified file and reports the queue item to add when
// it is somebody else's pending trace.
func (n *node) recordFile(p peer, f fetched) (queue.Item, bool) {
	n.state.MarkSeen(f.entry.Hash, n.now)
	n.fetched[f.entry.Hash] = f
	if f.val != nil {
		n.sum.NewValidations++
		n.recordValidation(p, f)
		return queue.Item{}, false
	}
	n.sum.NewTraces++
	t := &ledger.Trace{
		Agent: p.name, AgentURL: p.url, Seq: f.entry.Seq, Hash: f.entry.Hash, File: f.entry.File,
		URL: f.url, Type: f.entry.Type, Status: manifest.NormalizeStatus(f.entry.Status),
		Submitted: f.entry.Submitted, FirstSeen: n.now, Verified: true,
	}
	if f.trace != nil {
		t.Title, t.Category = f.trace.Title, f.trace.Category
		if t.Type == "" {
			t.Type = f.trace.Type
		}
		for _, c := range f.trace.Cites {
			t.Cites = append(t.Cites, fmt.Sprintf("%s/%d", c.Agent, c.Seq))
		}
		t.Fingerprint = fmt.Sprintf("%016x", score.Fingerprint(f.trace.Body))
	}
	n.ledger.AddTrace(t)
	if t.Status != manifest.StatusPending || n.own[t.Hash] || p.url == n.cfg.URL || strings.EqualFold(p.name, n.cfg.Agent) {
		return queue.Item{}, false
	}
	return queue.Item{
		ID: queueID(t.Hash), Hash: t.Hash, From: p.name, FromURL: p.url, TraceURL: t.URL,
		Type: t.Type, Title: t.Title, Seq: t.Seq, Submitted: t.Submitted, QueuedAt: n.now, UpdatedAt: n.now,
	}, true
}

func (n *node) recordValidation(p peer, f fetched) {
	v := f.val
	if v.Validator == "" {
		v.Validator = p.name
	}
	if v.ValidatorURL == "" {
		v.ValidatorURL = p.url
	}
	n.ledger.AddValidation(&ledger.Validation{
		Validator: v.Validator, ValidatorURL: p.url, TraceURL: v.TraceURL, TraceHash: v.TraceHash,
		Result: v.Result, Total: v.Total, Scores: v.Scores, HasScores: v.HasScores,
		ValidatedAt: v.ValidatedAt, SourceURL: f.url, SourceHash: f.entry.Hash,
	})
}

// recordUnfetchable keeps a row of a legacy layout (no file column): it
// counts in the ledger but can never be verified.
func (n *node) recordUnfetchable(p peer, e manifest.Entry) {
	if e.Hash == "" || n.ledger.Traces[e.Hash] != nil {
		return
	}
	n.ledger.AddTrace(&ledger.Trace{
		Agent: p.name, AgentURL: p.url, Seq: e.Seq, Hash: e.Hash, Type: e.Type, Category: e.Category,
		Title: e.Title, Status: manifest.NormalizeStatus(e.Status), Submitted: e.Submitted, FirstSeen: n.now,
	})
}

// learn keeps agents a peer lists in its AGENTS.md that we do not know,
// within the gossip caps. Gossip is untrusted: names and URLs were already
// validated by the roster parser, the private-address guard applies when
// they are polled, and the caps bound what one peer can add.
func (n *node) learn(r *pollResult) {
	if len(r.learned) == 0 {
		return
	}
	self, _ := roster.NormalizeURL(n.cfg.URL)
	for _, a := range r.learned {
		if n.sum.PeersLearned >= n.cfg.Gossip.MaxNewPeersPerHeartbeat || len(n.state.Cursors) >= n.cfg.Gossip.MaxPeers {
			return
		}
		if a.URL == self || n.state.Cursors[a.URL] != nil {
			continue
		}
		c := n.state.Cursor(a.URL)
		c.Agent, c.LearnedFrom = a.Name, r.peer.url
		n.sum.PeersLearned++
		n.log.Info("learned peer", "peer", a.Name, "url", a.URL, "from", r.peer.url)
	}
}

// queueID names a queue item and its validation file: the first 12 hex of
// the trace hash, as in validations/val-<12 hex>.md.
func queueID(hash string) string {
	name := validation.FileName(hash)
	return strings.TrimSuffix(strings.TrimPrefix(name, "val-"), ".md")
}
