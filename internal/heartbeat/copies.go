package heartbeat

import (
	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
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

// takeDownDisputed marks each peer trace that a dispute which counts
// names disputed, and publishes again one that no such dispute names
// (docs/decisions.md, "Taking a peer's text down"). A dispute counts when
// it is ours (the ledger's rejection: we were served other bytes), when
// its author disputes its own trace, or when its reporter has standing as
// SIGNAL computes it: a peer without standing cannot stop us republishing
// another agent's text. A withdrawn trace is withdraw's.
func (n *job) takeDownDisputed() error {
	named := n.disputedHashes()
	if len(named) == 0 && !n.anyDisputed() {
		return nil
	}
	standing, err := n.standingOf()
	if err != nil {
		return err
	}
	for _, t := range n.ledger.Traces {
		if t.TakenDown == ledger.Withdrawn {
			continue
		}
		why := ""
		if named[t.Hash].counts(t.AgentURL, standing) {
			why = ledger.Disputed
		}
		n.ledger.TakeDown(t.Hash, why)
	}
	return nil
}

// disputers are who disputes one hash: ours says we were served other
// bytes; reporters are the peers' trace URLs.
type disputers struct {
	ours      bool
	reporters []string
}

// counts reports whether a dispute of a trace by author takes it down.
func (d *disputers) counts(author string, standing func(string) bool) bool {
	if d == nil {
		return false
	}
	if d.ours {
		return true
	}
	for _, r := range d.reporters {
		if r == author || standing(r) {
			return true
		}
	}
	return false
}

// disputedHashes are the hashes our rejections and peers' disputes name.
func (n *job) disputedHashes() map[manifest.Hash]*disputers {
	out := map[manifest.Hash]*disputers{}
	of := func(h manifest.Hash) *disputers {
		if out[h] == nil {
			out[h] = &disputers{}
		}
		return out[h]
	}
	for _, r := range n.ledger.Rejected {
		of(r.ClaimedHash).ours = true
	}
	for _, d := range n.ledger.Disputes {
		of(d.ClaimedHash).reporters = append(of(d.ClaimedHash).reporters, d.ReporterURL)
	}
	return out
}

// anyDisputed reports whether the ledger holds a trace marked disputed,
// which a dispute that no longer counts must publish again.
func (n *job) anyDisputed() bool {
	for _, t := range n.ledger.Traces {
		if t.TakenDown == ledger.Disputed {
			return true
		}
	}
	return false
}

// standingOf says whether the agent at a trace URL has standing, from
// this heartbeat's SIGNAL report (signal.Self: the one computation of
// standing). Under a rule set this node does not implement, nobody has.
func (n *job) standingOf() (func(string) bool, error) {
	r, err := n.signalReport()
	if unknownRules(err) != nil {
		return func(string) bool { return false }, nil
	}
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	return func(url string) bool {
		has, ok := known[url]
		if !ok {
			a, found := signal.Self(r, url)
			has = found && a.Standing
			known[url] = has
		}
		return has
	}, nil
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
