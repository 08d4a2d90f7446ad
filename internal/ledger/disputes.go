package ledger

import (
	"maps"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/manifest"
)

// Dispute is the record of one MANIFEST-DISPUTE file a peer published: who
// disputes which agent's file, with which hashes, and when it says it
// looked (docs/protocol.md §7.4). Reporter and ReporterURL are the peer
// the file was read from, never what the file claims; the rest is the
// file's word, which SIGNAL weighs (docs/decisions.md, Rule sets).
type Dispute struct {
	Reporter    string        `json:"reporter"`
	ReporterURL string        `json:"reporter_url"`
	Agent       string        `json:"agent,omitempty"`     // the disputed agent, as the file names it
	AgentURL    string        `json:"agent_url,omitempty"` // its trace URL, as the file names it
	FileURL     string        `json:"file_url,omitempty"`
	Seq         manifest.Seq  `json:"seq"`
	ClaimedHash manifest.Hash `json:"claimed_hash"`
	ServedHash  manifest.Hash `json:"served_hash"`
	ObservedAt  time.Time     `json:"observed_at,omitzero"`
	SourceURL   string        `json:"source_url,omitempty"`  // the dispute file's URL
	SourceHash  manifest.Hash `json:"source_hash,omitempty"` // the dispute file's hash
}

// DisputeOf is the record of a parsed dispute file, as its file says. Who
// published it and where it was read (Reporter, ReporterURL, SourceURL,
// SourceHash) are the caller's to set: a file's own reporter is only a
// claim.
func DisputeOf(d *dispute.Dispute) Dispute {
	return Dispute{
		Reporter: d.Reporter, ReporterURL: d.ReporterURL, Agent: d.Agent, AgentURL: d.AgentURL, FileURL: d.FileURL,
		Seq: d.Seq, ClaimedHash: d.ClaimedHash, ServedHash: d.ServedHash, ObservedAt: d.ObservedAt,
	}
}

// Key is the key of a dispute in Ledger.Disputes: the URL of the agent
// that published it and the hash of its file, as for validations
// (Validation.Key). A record without a file hash is keyed by the hash it
// disputes.
func (d *Dispute) Key() string {
	if d.SourceHash != "" {
		return d.ReporterURL + " " + string(d.SourceHash)
	}
	return d.ReporterURL + " claimed " + string(d.ClaimedHash)
}

// AddDispute records d as the dispute file it was read from, one record
// per publisher and file hash; reading the same file again replaces it.
func (l *Ledger) AddDispute(d *Dispute) {
	if l.Disputes == nil {
		l.Disputes = map[string]*Dispute{}
	}
	nd := *d
	if old := l.Disputes[nd.Key()]; old != nil {
		l.replaced(old.ReporterURL, nd.ReporterURL, old, disputeTime(old), disputeTime(&nd))
	}
	l.touch(nd.ReporterURL)
	l.Disputes[nd.Key()] = &nd
}

// DisputesBy counts the disputes the agent at reporterURL published that
// the ledger holds.
func (l *Ledger) DisputesBy(reporterURL string) int {
	n := 0
	for _, d := range l.Disputes {
		if d != nil && d.ReporterURL == reporterURL {
			n++
		}
	}
	return n
}

// SortedDisputes returns every dispute by key: reporter URL, then file
// hash.
func (l *Ledger) SortedDisputes() []*Dispute {
	out := make([]*Dispute, 0, len(l.Disputes))
	for _, k := range slices.Sorted(maps.Keys(l.Disputes)) {
		if d := l.Disputes[k]; d != nil {
			out = append(out, d)
		}
	}
	return out
}

func (d *Dispute) normalized() *Dispute {
	c := *d
	c.ObservedAt = utc(d.ObservedAt)
	return &c
}
