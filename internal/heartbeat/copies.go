package heartbeat

import (
	"context"
	"slices"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/integrity"
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
// by the fetch of p's file (fetched.read) before its bytes were handed on,
// and held since by the file or by n.held. One n.held let go of replaces
// the copy kept before as the copy would have, and is fetched again if
// the copies' bounds select it (backfillCopies).
func (n *job) keepCopy(p peer, h manifest.Hash, f fetched) {
	c, offered := f.copy, false
	if c == nil {
		c, offered = n.held.take(p.url, f.entry)
	}
	switch {
	case c != nil:
		n.snap.Copies.Put(h, c)
		delete(n.letGo, h)
	case offered:
		n.snap.Copies.Drop(h)
		if n.letGo == nil {
			n.letGo = map[manifest.Hash]copyFile{}
		}
		n.letGo[h] = copyFile{p: p, e: f.entry}
	}
}

// giveWay promotes another agent's copy in place of each record of the
// ledger's traces that its lister gave up, when that copy is still listed
// (ledger.Promote), so that the author's text stays while it publishes it
// (docs/decisions.md, "Taking a peer's text down"). It runs after
// withdraw: a lister gives a record up when it is withdrawn, or when the
// lister disputes its own listing (ownClaims). A copy is still listed
// unless it is marked withdrawn (from its lister's MANIFEST.md when this
// run read it whole, else as last read) or its lister disputes it so. The
// first copy by agent URL, then seq, is promoted, as Forget's is. A quiet
// heartbeat, which brought nothing new, leaves what the last one
// promoted.
func (n *job) giveWay(listings map[string]*listing) error {
	if n.quiet != nil || len(n.ledger.Copies) == 0 {
		return nil
	}
	n.withdrawCopies(listings)
	disputed, err := n.ownClaims()
	if err != nil {
		return err
	}
	gaveUp := func(t *ledger.Trace) bool {
		return t != nil && (t.TakenDown == ledger.Withdrawn || disputed(t))
	}
	var cands []*ledger.Trace
	for _, c := range n.ledger.Copies {
		if c != nil && !gaveUp(c) && gaveUp(n.ledger.Traces[c.Hash]) {
			cands = append(cands, c)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		return a.AgentURL < b.AgentURL || (a.AgentURL == b.AgentURL && a.Seq < b.Seq)
	})
	for _, c := range cands {
		// A copy of the same bytes promoted before it gave up nothing.
		if t := n.ledger.Traces[c.Hash]; gaveUp(t) && n.ledger.Promote(c.Hash, c.AgentURL) {
			n.log.Info("copy promoted: the first listing of its bytes was given up", "peer", c.Agent, "url", c.AgentURL, "seq", c.Seq, "sha256", c.Hash, "of", t.AgentURL)
		}
	}
	return nil
}

// ownClaims says whether the lister of a record (a trace or a copy)
// disputes its own listing: publishes a dispute of the record's hash
// that is about the lister itself, as takeDownDisputed reads "its
// author's own" dispute (aboutOf). A lister's dispute of another agent's
// file claiming the same hash (a mirror reporting that the author served
// it other bytes) gives nothing up. SIGNAL, which aboutOf reads, is
// computed only when some lister disputes a hash it lists beside
// another agent.
func (n *job) ownClaims() (func(*ledger.Trace) bool, error) {
	byHash := map[manifest.Hash][]*ledger.Dispute{}
	for _, d := range n.ledger.Disputes {
		if d != nil {
			byHash[d.ClaimedHash] = append(byHash[d.ClaimedHash], d)
		}
	}
	if !n.listerDisputes(byHash) {
		return func(*ledger.Trace) bool { return false }, nil
	}
	about, err := n.aboutOf()
	if err != nil {
		return nil, err
	}
	return func(t *ledger.Trace) bool {
		return slices.ContainsFunc(byHash[t.Hash], func(d *ledger.Dispute) bool { return d.ReporterURL == t.AgentURL && about(d, t) })
	}, nil
}

// listerDisputes reports whether byHash (disputes by claimed hash) holds
// a dispute of a copied hash by one of its listers.
func (n *job) listerDisputes(byHash map[manifest.Hash][]*ledger.Dispute) bool {
	by := func(ds []*ledger.Dispute, url string) bool {
		return slices.ContainsFunc(ds, func(d *ledger.Dispute) bool { return d.ReporterURL == url })
	}
	for _, c := range n.ledger.Copies {
		if c == nil || len(byHash[c.Hash]) == 0 {
			continue
		}
		if by(byHash[c.Hash], c.AgentURL) {
			return true
		}
		if t := n.ledger.Traces[c.Hash]; t != nil && by(byHash[c.Hash], t.AgentURL) {
			return true
		}
	}
	return false
}

// withdrawCopies marks each copy of the peers whose MANIFEST.md this run
// read whole withdrawn when it no longer lists it, and as published again
// when it does, as withdraw marks traces.
func (n *job) withdrawCopies(listings map[string]*listing) {
	for _, c := range n.ledger.Copies {
		if c == nil {
			continue
		}
		l := listings[c.AgentURL]
		switch {
		case l == nil:
		case !l.lists(c):
			n.ledger.TakeDownCopy(c.AgentURL, c.Hash, ledger.Withdrawn)
		case c.TakenDown == ledger.Withdrawn:
			n.ledger.TakeDownCopy(c.AgentURL, c.Hash, "")
		}
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
// (docs/decisions.md, "Taking a peer's text down"). A dispute counts
// against a trace only when it is about the trace's author: ours when
// the ledger's rejection is of a file of that agent
// (ledger.Rejection.Against: it served us other bytes), a peer's when
// the agent it names is the author as SIGNAL's mismatch rule reads it
// (signal.DisputedAgents) and it is the author's own or its reporter has
// standing as SIGNAL computes it. So a peer without standing cannot stop
// us republishing another agent's text, nor can a row of one agent that
// claims another's hash. A withdrawn trace is withdraw's.
func (n *job) takeDownDisputed() error {
	named := n.disputedHashes()
	if len(named) == 0 && !n.anyDisputed() {
		return nil
	}
	standing, err := n.standingOf()
	if err != nil {
		return err
	}
	about, err := n.aboutOf()
	if err != nil {
		return err
	}
	for _, t := range n.ledger.Traces {
		if t.TakenDown == ledger.Withdrawn {
			continue
		}
		why := ""
		if named[t.Hash].counts(t, about, standing) {
			why = ledger.Disputed
		}
		n.ledger.TakeDown(t.Hash, why)
	}
	return nil
}

// disputers are who disputes one hash: ours are our rejections of it,
// peers the peers' disputes of it.
type disputers struct {
	ours  []*ledger.Rejection
	peers []*ledger.Dispute
}

// counts reports whether a dispute of trace t takes it down: about says
// whether a peer's dispute is about t's author, standing whether the
// agent at a trace URL has standing.
func (d *disputers) counts(t *ledger.Trace, about func(*ledger.Dispute, *ledger.Trace) bool, standing func(string) bool) bool {
	if d == nil {
		return false
	}
	for _, r := range d.ours {
		if r.Against(t) {
			return true
		}
	}
	for _, p := range d.peers {
		if about(p, t) && (p.ReporterURL == t.AgentURL || standing(p.ReporterURL)) {
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
		of(r.ClaimedHash).ours = append(of(r.ClaimedHash).ours, r)
	}
	for _, d := range n.ledger.Disputes {
		of(d.ClaimedHash).peers = append(of(d.ClaimedHash).peers, d)
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

// aboutOf says whether a peer's dispute is about a trace's author, by
// this heartbeat's SIGNAL report (signal.DisputedAgents: the one reading
// of whom a dispute is about). Under a rule set this node does not
// implement, SIGNAL knows no agent, and only the author's own dispute
// naming itself is about it (signal.Names): who published a dispute is
// the URL it was read from and needs no SIGNAL, so an author can still
// take its own trace down; nobody else's dispute counts there, for want
// of standing anyway.
func (n *job) aboutOf() (func(*ledger.Dispute, *ledger.Trace) bool, error) {
	r, err := n.signalReport()
	if unknownRules(err) != nil {
		return ownDispute, nil
	}
	if err != nil {
		return nil, err
	}
	agents := signal.DisputedAgentsOf(r)
	return func(d *ledger.Dispute, t *ledger.Trace) bool { return agents.About(*d, t.Agent, t.AgentURL) }, nil
}

// ownDispute reports whether d is t's author's dispute of its own
// trace: published by the agent at t's URL and naming it.
func ownDispute(d *ledger.Dispute, t *ledger.Trace) bool {
	return d.ReporterURL == t.AgentURL && signal.Names(*d, t.Agent, t.AgentURL)
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
	n.snap.Copies.Keep(n.copiesKept())
}

// selectCopies is the hashes of the traces the node keeps copies of.
func (n *job) selectCopies() map[manifest.Hash]bool {
	cands := make([]copies.Candidate, 0, len(n.ledger.Traces))
	for _, t := range n.ledger.Traces {
		if t.Verified && t.TakenDown == "" {
			cands = append(cands, candidateOf(t))
		}
	}
	return copies.Select(cands, copies.PerAgent, copies.MaxCopies)
}

// copyBackfill is how many traces a heartbeat fetches again at most to
// take the copy it lacks (docs/decisions.md, "Taking a peer's text
// down"): a node that kept no copies before needs at most MaxCopies, a
// few days of heartbeats, and no heartbeat spends more than this many
// requests on it.
const copyBackfill = 50

// backfillWorkers is how many of those requests run at once.
const backfillWorkers = 4

// backfillCopies fetches again the traces the copies' bounds select and
// the node holds no copy of (seen before it kept copies, or republished
// once a dispute stopped counting), newest first, at most copyBackfill,
// from the peers this heartbeat reached; it keeps the copy of each whose
// bytes hash to what its MANIFEST.md listed, made as the fetch makes one.
//
// First it fetches again, whatever their number, the copies of this
// heartbeat's traces that n.held let go of while polling and that the
// bounds select after all: held, they would have been kept.
func (n *job) backfillCopies(ctx context.Context, results []*pollResult) {
	if n.quiet != nil {
		return // no peer reached has a copy missing (quietUnless)
	}
	if again := n.letGoSelected(); len(again) > 0 {
		n.log.Info("copies fetched again: let go of while polling", "count", n.keepFetched(ctx, again), "tried", len(again))
	}
	reached := map[string]peer{}
	for _, r := range results {
		if r.err == nil {
			reached[r.peer.url] = r.peer
		}
	}
	missing := n.missingCopies(reached)
	if len(missing) > 0 {
		n.log.Info("copies backfilled", "count", n.keepFetched(ctx, missing), "tried", len(missing))
	}
}

// copyFile is a file of a peer to take a copy of.
type copyFile struct {
	p peer
	e manifest.Entry
}

// keepFetched fetches the files, backfillWorkers at a time, keeps the
// copy of each that verified, and counts them.
func (n *job) keepFetched(ctx context.Context, files []copyFile) int {
	got := make([]*copies.Copy, len(files))
	var g errgroup.Group
	g.SetLimit(backfillWorkers)
	for i, f := range files {
		g.Go(func() error {
			got[i] = n.fetchCopy(ctx, f.p, f.e)
			return nil
		})
	}
	_ = g.Wait() // fetchCopy logs its failures and returns none
	kept := 0
	for i, c := range got {
		if c != nil {
			n.snap.Copies.Put(files[i].e.Hash, c)
			kept++
		}
	}
	return kept
}

// letGoSelected are the files of this heartbeat's traces whose copies
// n.held let go of and the copies' bounds select, by hash.
func (n *job) letGoSelected() []copyFile {
	var out []copyFile
	kept := n.copiesKept()
	for h, f := range n.letGo {
		if kept[h] && n.snap.Copies.ByHash[h] == nil {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].e.Hash < out[j].e.Hash })
	return out
}

// candidateOf is the trace as copies.Select weighs it.
func candidateOf(t *ledger.Trace) copies.Candidate {
	return copies.Candidate{Hash: t.Hash, AgentURL: t.AgentURL, Seq: t.Seq, Submitted: t.Submitted}
}

// missingCopies are the files of the selected traces of reached peers
// without a copy, newest first, at most copyBackfill; those of this
// heartbeat's traces are letGoSelected's.
func (n *job) missingCopies(reached map[string]peer) []copyFile {
	var ts []*ledger.Trace
	for h := range n.copiesKept() {
		t := n.ledger.Traces[h]
		if _, ok := reached[t.AgentURL]; ok && t.File != "" && n.snap.Copies.ByHash[h] == nil {
			if _, now := n.letGo[h]; !now {
				ts = append(ts, t)
			}
		}
	}
	sort.Slice(ts, func(i, j int) bool { return candidateOf(ts[i]).Newer(candidateOf(ts[j])) })
	out := make([]copyFile, 0, min(len(ts), copyBackfill))
	for _, t := range ts[:min(len(ts), copyBackfill)] {
		out = append(out, copyFile{p: reached[t.AgentURL], e: manifest.Entry{Seq: t.Seq, Hash: t.Hash, File: t.File, Type: t.Type}})
	}
	return out
}

// fetchCopy fetches the file e of p, verifies its bytes against the hash
// its row listed (the one the ledger holds), and returns its copy, or nil.
func (n *job) fetchCopy(ctx context.Context, p peer, e manifest.Entry) *copies.Copy {
	got, err := verifierOf(n.client, p).Fetch(ctx, integrity.Claim{Base: p.url, File: e.File, Hash: e.Hash, MaxBytes: n.cfg.Limits.TraceBytes})
	if err != nil {
		n.log.Warn("copy not backfilled", "peer", p.name, "url", p.url, "seq", e.Seq, "sha256", e.Hash, "reason", err)
		return nil
	}
	f := fetched{entry: e, url: got.URL, raw: got.Body}
	f.read(p.name, p.url, func(string, manifest.Entry) bool { return true })
	return f.copy
}
