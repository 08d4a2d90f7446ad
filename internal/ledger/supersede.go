package ledger

import (
	"slices"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Supersede records t, a verified file, in place of the record of its hash
// that a row without a file column of another agent gave: an unverified
// record is no claim on bytes another agent served and verified
// (docs/decisions.md, "Copies"), so nothing of it is kept, neither merged
// into t nor as that agent's copy. Had t been read first, that row would
// never have been recorded; the ledger now holds what it would hold then.
func (l *Ledger) Supersede(t *Trace) {
	if old := l.Traces[t.Hash]; old != nil && old.AgentURL != t.AgentURL && !old.Verified {
		// A sealed record's peer gives its segments back to its file,
		// which Save then writes without it.
		l.movedFrom(old.AgentURL, t.AgentURL, old)
		l.touch(old.AgentURL)
		delete(l.Traces, t.Hash)
	}
	l.AddTrace(t)
}

// DropTraceListings removes the records of the bytes of hash h as a trace
// of agents other than the one at publisherURL, which publishes them as
// its validation or dispute: only a trace is a copy of a trace
// (docs/protocol.md §6.4), and those bytes are no other agent's trace.
// The ledger then holds what it would hold had the publisher's file been
// read first, when no such record is made. When the record in Traces is
// the publisher's own listing of its bytes as a trace, nothing is
// removed; when the publisher lists them as a trace too, as a copy, its
// copy takes the record's place (Promote) first. It returns the URLs of
// the agents whose records it removed, sorted.
func (l *Ledger) DropTraceListings(h manifest.Hash, publisherURL string) []string {
	if t := l.Traces[h]; t == nil || t.AgentURL == publisherURL {
		return nil
	}
	l.Promote(h, publisherURL)
	var gone []string
	if t := l.Traces[h]; t != nil && t.AgentURL != publisherURL {
		l.movedFrom(t.AgentURL, publisherURL, t)
		l.touch(t.AgentURL)
		delete(l.Traces, h)
		gone = append(gone, t.AgentURL)
	}
	for _, c := range l.SortedCopies() {
		if c.Hash != h || c.AgentURL == publisherURL {
			continue
		}
		l.movedFrom(c.AgentURL, publisherURL, c)
		l.touch(c.AgentURL)
		delete(l.Copies, CopyKey(c.AgentURL, h))
		gone = append(gone, c.AgentURL)
	}
	slices.Sort(gone)
	return gone
}
