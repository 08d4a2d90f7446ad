package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// Outcomes of one poll, as logged and counted.
const (
	outcomeSkipped     = "skipped"      // the circuit breaker or the quiet schedule said not yet
	outcomeUnchanged   = "unchanged"    // 304, or the same manifest bytes
	outcomeNew         = "new"          // new entries processed
	outcomeNothingNew  = "nothing_new"  // manifest changed, nothing above the cursor
	outcomeFailed      = "failed"       // counts against the circuit breaker
	outcomeRateLimited = "rate_limited" // the host asked us to wait: not a failure
	outcomeGone        = "gone"         // 410: muted
	// outcomeInterrupted: a signal stopped the run before the poll ended;
	// the cursor stays as it was, the peer is not blamed.
	outcomeInterrupted = "interrupted"
)

// peer is one agent to poll.
type peer struct {
	name string
	url  string // trace URL, ending in "/"
}

// fetched is one verified file of a peer, kept in memory for this run only.
type fetched struct {
	entry manifest.Entry
	url   string
	raw   []byte
	trace *trace.Trace           // set for traces
	val   *validation.Validation // set for validation files
}

// mismatch is a file whose served bytes did not hash to the MANIFEST hash.
type mismatch struct {
	entry  manifest.Entry
	url    string
	served string
}

// pollResult is everything one poll learned. It is applied to the shared
// state by the single goroutine that runs the heartbeat.
type pollResult struct {
	peer       peer
	outcome    string
	err        error
	cursor     state.Cursor // the cursor after this poll
	start      state.Cursor // the cursor before it
	files      []fetched
	records    []manifest.Entry // rows with no file column
	dups       int
	mismatches []mismatch
	rejected   []string // entries refused before fetching (bad path), with why
	learned    []roster.Agent
	gapCount   int
	backwards  bool
	requests   int
	latency    time.Duration
	rateLeft   int            // X-RateLimit-Remaining of the manifest's answer; -1 when not sent
	activity   state.Activity // set by a successful poll
}

// poller polls peers. It is shared by the poll goroutines and must only be
// read by them.
type poller struct {
	client    *fetch.Client
	now       time.Time
	seen      func(hash string) bool // read-only view of seen_hashes
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
	// node is what all polls of this heartbeat have spent together.
	node nodeBudget
}

type limits struct {
	manifest, trace, agents int64
}

// poll runs one poll of p from cursor c.
func (pl *poller) poll(ctx context.Context, p peer, c state.Cursor) *pollResult {
	start := time.Now()
	r := &pollResult{peer: p, cursor: c, start: c, rateLeft: -1}
	defer func() { r.latency = time.Since(start) }()
	if !c.Due(pl.now) {
		r.outcome = outcomeSkipped
		return r
	}
	r.cursor.LastPolled = pl.now
	req := fetch.Request{URL: p.url + manifest.FileName, MaxBytes: pl.limits.manifest, Within: p.url}
	if !c.Unread() {
		// With entries to retry, or a budget's remainder to read, we need
		// the body even if it did not change.
		req.ETag, req.LastModified = c.ETag, c.LastModified
	}
	r.requests++
	resp, err := pl.client.Get(ctx, req)
	if err != nil {
		pl.fail(r, err)
		return r
	}
	r.cursor.ETag, r.cursor.LastModified = resp.ETag, resp.LastModified
	r.rateLeft = resp.RateLimit.Remaining
	if resp.NotModified {
		pl.succeed(r, outcomeUnchanged)
		return r
	}
	sum := manifest.HashBytes(resp.Body)
	if sum == c.ManifestSHA256 && !c.Unread() {
		pl.succeed(r, outcomeUnchanged)
		return r
	}
	// Parsing and planning a manifest of 4 MiB takes ten times its size
	// in memory: a few at a time, so many large ones cannot add up.
	weight := min(int64(len(resp.Body)), maxParseBytes)
	if err := pl.parsing.Acquire(ctx, weight); err != nil {
		pl.fail(r, err)
		return r
	}
	defer pl.parsing.Release(weight)
	m, problems, err := manifest.Parse(resp.Body)
	if err != nil {
		pl.fail(r, fmt.Errorf("parse manifest: %w", err))
		return r
	}
	for i, pr := range problems {
		if i == maxProblemLogs {
			pl.logf("peer %s: %d more MANIFEST.md lines skipped", p.name, len(problems)-i)
			break
		}
		pl.logf("peer %s: MANIFEST.md line %d skipped: %s", p.name, pr.Line, pr.Reason)
	}
	if c.ManifestSHA256 != sum {
		r.cursor.ManifestChanged = pl.now
	}
	r.cursor.ManifestSHA256 = sum
	r.cursor.ManifestUpdated = m.Updated
	pl.process(ctx, r, m)
	if pl.wantPeers {
		pl.gossip(ctx, r)
	}
	return r
}

// process fetches and verifies the entries the plan wants, within the
// poll's budget.
func (pl *poller) process(ctx context.Context, r *pollResult, m *manifest.Manifest) {
	c := &r.cursor
	pn := planPoll(cursorView{lastSeen: c.LastSeenSeq, gaps: c.Gaps, retry: c.Retry}, m)
	r.backwards = pn.backwards
	if pn.backwards {
		pl.logf("peer %s: sequence went backwards from %d to %d: rescanning, deduplicating by hash", r.peer.name, c.LastSeenSeq, pn.lastSeen)
	}
	r.dups += pn.dups
	var retry []int
	b := budget{node: &pl.node}
	warned := 0
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
		case got.file != nil:
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
	if pn.truncated {
		pl.logf("peer %s: budget or deadline reached at seq %d (%d rows, %d bytes): the rest is read next heartbeat", r.peer.name, pn.lastSeen, b.entries, b.bytes)
	}
	c.LastSeenSeq = pn.lastSeen
	c.Gaps = pn.gaps
	c.Retry = append(retry, pn.retry...)
	c.Backlog = pn.truncated
	r.gapCount = countRanges(pn.gaps)
	if len(pn.gaps) > 0 {
		pl.logf("peer %s: %d seqs missing below %d (gaps kept for a later backfill)", r.peer.name, r.gapCount, pn.lastSeen)
	}
	outcome := outcomeNothingNew
	if len(r.files)+len(r.mismatches) > 0 {
		outcome = outcomeNew
	}
	pl.succeed(r, outcome)
}

// entryResult is what fetching one planned entry gave: exactly one of its
// fields but requests is set, or none for an entry without a file.
type entryResult struct {
	dup      bool // already seen: not fetched
	retry    bool // ask again at the next poll
	rejected string
	mismatch *mismatch
	file     *fetched
	requests int
	warn     string // what went wrong, logged by the poll if it takes the entry
	// reserved is what the fetch reserved of the heartbeat's maxHeldBytes,
	// given back unless the poll takes the file.
	reserved int64
	full     bool // the heartbeat's maxHeldBytes left no room: not fetched
}

// fetchAhead is how many rounds of fileWorkers fetches may run ahead of
// the entry being used: enough to keep the host's cap full, few enough that
// at most 2 × 16 bodies are held beyond the poll's budget, and all of them
// within the heartbeat's maxHeldBytes.
const fetchAhead = 2

// fetchInOrder fetches a peer's planned entries concurrently, at most
// fileWorkers at once (the host's cap in the fetcher decides how many are
// really in flight: more over HTTP/2 than over HTTP/1.1), and hands each
// result to use in entry order, so what the poll records does not depend
// on timing. Fetches run at most fetchAhead entries ahead of use, and each
// first reserves its body's bytes of the heartbeat's maxHeldBytes: ahead
// of use only when they fit at once, for the entry use waits on by
// waiting for room (a result with full set when the files taken leave
// none). What use does not keep is given back. When use returns false the
// fetches under way are canceled and no more are started.
func (pl *poller) fetchInOrder(ctx context.Context, p peer, entries []manifest.Entry, use func(int, *entryResult) bool) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	workers := max(pl.fileWorkers, 1)
	slots := make(chan struct{}, workers)
	results := make([]chan entryResult, len(entries))
	reserve := min(max(pl.limits.trace, 1), heldReserveCap)
	// start starts entry i's fetch, or reports false when it is ahead of
	// use (not head) and its bytes do not fit yet.
	start := func(i int, head bool) bool {
		e := entries[i]
		switch {
		case e.File == "":
			results[i] = make(chan entryResult, 1)
			results[i] <- entryResult{}
			return true
		case ctx.Err() != nil:
			results[i] = make(chan entryResult, 1)
			results[i] <- entryResult{retry: true}
			return true
		case pl.seen(e.Hash):
			results[i] = make(chan entryResult, 1)
			results[i] <- entryResult{dup: true}
			return true
		}
		if !pl.node.reserve(reserve, head) {
			if !head {
				return false
			}
			results[i] = make(chan entryResult, 1)
			results[i] <- entryResult{full: true}
			return true
		}
		results[i] = make(chan entryResult, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			got := pl.fetchEntry(ctx, p, e)
			got.reserved = reserve
			results[i] <- got
		}()
		return true
	}
	next := 0
	for i := range entries {
		for ; next < len(entries) && next < i+fetchAhead*workers; next++ {
			if !start(next, next == i) {
				break
			}
		}
		got := <-results[i]
		results[i] = nil
		more := use(i, &got)
		pl.node.release(got.reserved)
		if !more {
			cancel()
			for j := i + 1; j < next; j++ {
				r := <-results[j]
				pl.node.release(r.reserved)
			}
			return
		}
	}
}

// fetchEntry fetches one file and verifies it.
func (pl *poller) fetchEntry(ctx context.Context, p peer, e manifest.Entry) entryResult {
	if ctx.Err() != nil {
		return entryResult{retry: true}
	}
	u, err := fetch.ResolveWithin(p.url, e.File)
	if err != nil {
		// A bad path does not get better by retrying.
		why := fmt.Sprintf("seq %d: %v", e.Seq, err)
		return entryResult{rejected: why, warn: "refused " + why}
	}
	resp, err := pl.client.Get(ctx, fetch.Request{URL: u, MaxBytes: pl.limits.trace, Within: p.url})
	if fetch.IsKind(err, fetch.KindRedirect) {
		// A redirect off the peer's base URL is refused like a bad path,
		// and no more likely to change by asking again.
		why := fmt.Sprintf("seq %d: %v", e.Seq, err)
		return entryResult{rejected: why, warn: "refused " + why, requests: 1}
	}
	if err != nil {
		return entryResult{retry: true, requests: 1, warn: fmt.Sprintf("seq %d: fetch %s: %v", e.Seq, u, err)}
	}
	served := manifest.HashBytes(resp.Body)
	if served != e.Hash {
		return entryResult{mismatch: &mismatch{entry: e, url: u, served: served}, requests: 1,
			warn: fmt.Sprintf("seq %d: hash mismatch: manifest says %s, served bytes hash to %s", e.Seq, e.Hash, served)}
	}
	f := fetched{entry: e, url: u, raw: resp.Body}
	var warn string
	if isValidationFile(e) {
		if v, err := validation.Parse(resp.Body); err == nil {
			f.val = v
		}
	}
	if f.val == nil {
		if t, err := trace.Parse(resp.Body); err == nil {
			f.trace = t
		} else {
			warn = fmt.Sprintf("seq %d: trace metadata unreadable: %v", e.Seq, err)
		}
	}
	return entryResult{file: &f, requests: 1, warn: warn}
}

// isValidationFile reports whether an entry names a validation rather than
// a trace: by its type, or by the seed's validations/ path.
func isValidationFile(e manifest.Entry) bool {
	return strings.EqualFold(e.Type, "validation") || strings.HasPrefix(e.File, "validations/")
}

// gossip reads the peer's AGENTS.md and keeps the agents it lists.
func (pl *poller) gossip(ctx context.Context, r *pollResult) {
	r.requests++
	resp, err := pl.client.Get(ctx, fetch.Request{URL: r.peer.url + roster.FileName, MaxBytes: pl.limits.agents, Within: r.peer.url})
	if err != nil {
		return // AGENTS.md is optional: its absence is no failure of the peer
	}
	agents, _ := roster.Parse(resp.Body)
	r.learned = agents
}

func (pl *poller) fail(r *pollResult, err error) {
	r.err = err
	switch {
	case fetch.IsKind(err, fetch.KindRateLimited):
		r.outcome = outcomeRateLimited
	case fetch.IsKind(err, fetch.KindCanceled):
		r.outcome = outcomeInterrupted
		r.cursor = r.start
	case fetch.IsKind(err, fetch.KindGone):
		r.outcome = outcomeGone
		r.cursor.RecordGone(pl.now, err.Error())
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		r.outcome = outcomeFailed
		r.cursor.RecordFailure(pl.now, "heartbeat deadline reached")
	default:
		r.outcome = outcomeFailed
		r.cursor.RecordFailure(pl.now, err.Error())
	}
}

// succeed resets the breaker and sets the peer's next poll by what this
// poll found: new seqs (files, mismatched files and rows without a file)
// are news, a manifest whose only change is its `updated:` line is not.
func (pl *poller) succeed(r *pollResult, outcome string) {
	r.outcome = outcome
	r.cursor.RecordSuccess(pl.now)
	news := len(r.files) + len(r.mismatches) + len(r.records)
	r.activity = r.cursor.RecordActivity(pl.now, news, pl.schedule)
}

func countRanges(rs []state.Range) int {
	n := 0
	for _, r := range rs {
		n += r.To - r.From + 1
	}
	return n
}
