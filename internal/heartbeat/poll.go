package heartbeat

import (
	"context"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/state"
)

// peer is one agent to poll.
type peer struct {
	name   string
	url    string // trace URL, ending in "/"
	public bool   // reached on public addresses only (job.vouched)
	// mirror, when set, is where this poll reads the peer's files, its
	// origin down (source.Listing.Mirror): getHeld asks it instead.
	mirror string
}

// request is a request for u, a file of the peer, of at most max bytes.
// Every read of a peer goes through it, so each stays under the peer's
// base URL and behind its address guard.
func (p peer) request(u string, max int64) fetch.Request {
	return fetch.Request{URL: u, MaxBytes: max, Within: p.url, Public: p.public}
}

// poller polls peers. It is shared by the poll goroutines and must only be
// read by them.
type poller struct {
	client *fetch.Client
	now    time.Time
	seen   func(url string, hash manifest.Hash) bool // read-only view of seen_hashes, per peer (state.SeenFrom)
	// rereading are the peers read again in full (rereadMisread): their
	// files are fetched though seen.
	rereading map[string]bool
	selfURL   string
	limits    limits
	logf      func(format string, args ...any)
	wantPeers bool // gossip: read peers' AGENTS.md
	schedule  state.Schedule
	// fileWorkers is how many of one peer's files are fetched at once.
	fileWorkers int
	// parsing holds the bytes of the manifests being parsed and planned,
	// at most maxParseBytes.
	parsing *semaphore.Weighted
	// pages holds the bytes of the archive pages being parsed, at most
	// maxParseBytes; a poll holds one page's at a time, beside its
	// manifest's in parsing.
	pages *semaphore.Weighted
	// node is what all polls of this heartbeat have spent together, and
	// the bytes they hold.
	node *nodeBudget
	// scorable reports whether a verified file of p is a trace this
	// heartbeat may score (job.queueable): only its bytes are kept.
	scorable func(p peer, f *fetched) bool
	// source is where peers' entries come from (manifestSource).
	source source.Source
	// relays decide when a peer is due, when the node reads any.
	relays *relays
	// copies holds the copies of the traces fetched that the copies'
	// bounds may keep; nil: each file keeps its own.
	copies *heldCopies
}

type limits struct {
	manifest, trace, agents int64
}

// poll runs one poll of p from cursor c.
func (pl *poller) poll(ctx context.Context, p peer, c state.Cursor) *pollResult {
	start := time.Now()
	r := &pollResult{peer: p, cursor: c, start: c, rateLeft: -1}
	defer func() { r.latency = time.Since(start) }()
	if !pl.relays.due(p, &c, pl.now) {
		r.outcome = outcomeSkipped
		return r
	}
	r.cursor.LastPolled = pl.now
	l, err := pl.source.Read(ctx, source.Peer{Name: p.name, URL: p.url, Public: p.public}, &r.cursor)
	if l != nil {
		r.requests += l.Requests
		r.rateLeft = l.RateLeft
		if l.Release != nil {
			defer l.Release()
		}
	}
	if err != nil {
		pl.fail(r, err)
		return r
	}
	if l.Unchanged {
		pl.succeed(r, outcomeUnchanged)
		return r
	}
	r.listed = listingOf(l.Listed)
	r.peer.mirror = l.Mirror
	pl.process(ctx, r, archiveView{m: l.Manifest, read: l.Read, truncated: l.Truncated})
	if pl.wantPeers {
		pl.gossip(ctx, r)
	}
	return r
}

// process fetches and verifies the entries the plan wants, within the
// poll's budget.
func (pl *poller) process(ctx context.Context, r *pollResult, v archiveView) {
	c := &r.cursor
	pn := planPoll(cursorView{lastSeen: c.LastSeenSeq, gaps: c.Gaps, retry: c.Retry}, v.m)
	pn.gaps = withoutRanges(pn.gaps, v.read)
	r.backwards = pn.backwards
	if pn.backwards {
		pl.logf("peer %s: sequence went backwards from %d to %d: rescanning, deduplicating by hash", r.peer.name, c.LastSeenSeq, pn.lastSeen)
	}
	r.dups += pn.dups
	var retry []manifest.Seq
	b := budget{node: pl.node}
	warned := 0
	verified := make(map[manifest.Hash]bool, len(pn.todo)) // a hash two rows list is recorded once, from the first that verifies
	pl.fetchInOrder(ctx, r.peer, pn.todo, func(i int, got *entryResult) bool {
		r.requests += got.requests
		e := pn.todo[i]
		if ctx.Err() != nil && got.retry || !b.take(e, got) {
			pn.cut(i)
			return false
		}
		if got.warn != "" {
			warned++
			if warned <= maxProblemLogs {
				pl.logf("peer %s: %s", r.peer.name, got.warn)
			}
		}
		switch {
		case e.File == "":
			r.records = append(r.records, e)
		case got.dup:
			r.dups++
		case got.retry:
			retry = append(retry, e.Seq)
		case got.rejected != "":
			r.rejected = append(r.rejected, got.rejected)
		case got.mismatch != nil:
			r.mismatches = append(r.mismatches, *got.mismatch)
		case got.file != nil && verified[e.Hash]:
			r.dups++
		case got.file != nil:
			verified[e.Hash] = true
			pl.handOn(r.peer, got)
			r.files = append(r.files, *got.file)
		}
		if b.spent() {
			pn.cut(i + 1) // the next file would not fit: fetch no more
			return false
		}
		return true
	})
	if warned > maxProblemLogs {
		pl.logf("peer %s: %d more problems with its files", r.peer.name, warned-maxProblemLogs)
	}
	if pl.copies != nil {
		pl.copies.offer(r.peer.url, r.files)
	}
	if pn.truncated {
		pl.logf("peer %s: budget or deadline reached at seq %d (%d rows, %d bytes): the rest is read next heartbeat", r.peer.name, pn.lastSeen, b.entries, b.bytes)
	}
	c.LastSeenSeq = pn.lastSeen
	c.Gaps = pn.gaps
	c.Retry = append(retry, pn.retry...)
	c.Backlog = pn.truncated || v.truncated
	r.gapCount = state.Ranges(pn.gaps).Count()
	if len(pn.gaps) > 0 {
		pl.logf("peer %s: %d seqs missing below %d (gaps kept for a later backfill)", r.peer.name, r.gapCount, pn.lastSeen)
	}
	outcome := outcomeNothingNew
	if len(r.files)+len(r.mismatches) > 0 {
		outcome = outcomeNew
	}
	pl.succeed(r, outcome)
}

// handOn passes a taken file on to the apply: its reservation is given
// back, and its bytes stay only when scoring may want them and they fit
// (nodeBudget.keep); what was read from them stays either way.
func (pl *poller) handOn(p peer, got *entryResult) {
	f := got.file
	if !pl.node.keep(got.reserved, int64(len(f.raw)), pl.scorable(p, f)) {
		f.raw = nil
		if f.trace != nil {
			f.trace.Body = nil
		}
	}
	got.reserved = 0
}

// newestEntry is the newest plausible `submitted` time of m's rows, the
// evidence of publication presence is judged by.
func newestEntry(m *manifest.Manifest, now time.Time) time.Time {
	times := make([]time.Time, 0, len(m.Entries))
	for _, e := range m.Entries {
		times = append(times, e.Submitted)
	}
	return presence.Newest(times, now)
}
