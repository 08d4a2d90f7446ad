package heartbeat

import (
	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// What the node republishes of a peer's trace is a copy taken here, from
// bytes that verified, and taken down here (docs/decisions.md, "Taking a
// peer's text down"); the bounds are internal/copies'.

// listing is what a peer's MANIFEST.md lists: the hashes of its rows and
// the seqs of its archive pages, which are immutable and still publish
// every row they hold.
type listing struct {
	hashes   map[manifest.Hash]bool
	archives []manifest.Archive
}

// listingOf is m's listing, or nil without one (source.Listing.Listed:
// a manifest with lines skipped cannot tell a row removed from one the
// parser skipped, so it takes nothing down).
func listingOf(m *manifest.Manifest) *listing {
	if m == nil {
		return nil
	}
	l := &listing{hashes: make(map[manifest.Hash]bool, len(m.Entries)), archives: m.Archives}
	for _, e := range m.Entries {
		l.hashes[e.Hash] = true
	}
	return l
}

// lists reports whether the trace is still published: a row lists its
// hash, or an archive page holds its seq.
func (l *listing) lists(t *ledger.Trace) bool {
	if l.hashes[t.Hash] {
		return true
	}
	for _, a := range l.archives {
		if a.First <= t.Seq && t.Seq <= a.Last {
			return true
		}
	}
	return false
}

// keepCopy keeps the copy of a trace whose bytes verified this run, made
// by the fetch (fetched.read) before its bytes were handed on.
func (n *job) keepCopy(h manifest.Hash, f fetched) {
	if f.copy != nil {
		n.snap.Copies.Put(h, f.copy)
	}
}

// withdraw marks each trace of the peers whose MANIFEST.md this run read
// whole withdrawn when it no longer lists it, and as published again when
// it does.
func (n *job) withdraw(listings map[string]*listing) {
	if len(listings) == 0 {
		return
	}
	for _, t := range n.ledger.Traces {
		l := listings[t.AgentURL]
		switch {
		case l == nil:
		case !l.lists(t):
			n.ledger.TakeDown(t.Hash, ledger.Withdrawn)
		case t.TakenDown == ledger.Withdrawn:
			n.ledger.TakeDown(t.Hash, "")
		}
	}
}

// takeDownDisputed marks the trace with hash h disputed when the ledger
// holds it: a dispute, ours or a peer's, says the bytes at its URL no
// longer hash to what its author claims.
func (n *job) takeDownDisputed(h manifest.Hash) {
	n.ledger.TakeDown(h, ledger.Disputed)
}

// readDispute takes down the trace a peer's dispute names, as the fetch
// parsed it (fetched.read), when the dispute disputes something
// (dispute.Check, the test recordDispute applies too): a file that names
// a hash but no mismatch takes nothing down.
func (n *job) readDispute(f fetched) {
	if f.disp != nil && len(f.disp.Check()) == 0 {
		n.takeDownDisputed(f.disp.ClaimedHash)
	}
}

// keepCopies keeps the copies internal/copies' bounds select among the
// traces whose bytes verified and that nothing took down, and drops the
// rest: those taken down, and those that newer ones pushed out.
func (n *job) keepCopies() {
	var cands []copies.Candidate
	for _, t := range n.ledger.Traces {
		if t.Verified && t.TakenDown == "" {
			cands = append(cands, copies.Candidate{Hash: t.Hash, AgentURL: t.AgentURL, Seq: t.Seq, Submitted: t.Submitted})
		}
	}
	n.snap.Copies.Keep(copies.Select(cands, copies.PerAgent, copies.MaxCopies))
}
