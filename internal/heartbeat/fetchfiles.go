package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

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
	// reserved is what the fetch holds of the heartbeat's maxHeldBytes,
	// given back once the poll takes the file or drops it.
	reserved int64
	full     bool // the heartbeat's maxHeldBytes left no room: not fetched
	ahead    bool // fetched ahead of use, holding only what it read
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
// on timing. Fetches run at most fetchAhead entries ahead of use. Each
// holds, of the heartbeat's maxHeldBytes, only what it has read so far
// (bodyHold), and is refused more when there is no room; use then lets go
// of the fetches ahead of it and fetches that entry again, first reserving
// its whole body's bytes and waiting for room (a result with full set when
// the files taken leave none). What use does not keep is given back. When use
// returns false the fetches under way are canceled and no more are
// started.
func (pl *poller) fetchInOrder(ctx context.Context, p peer, entries []manifest.Entry, use func(int, *entryResult) bool) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	workers := max(pl.fileWorkers, 1)
	slots := make(chan struct{}, workers)
	results := make([]chan entryResult, len(entries))
	reserve := min(max(pl.limits.trace, 1), heldReserveCap)
	// start starts entry i's fetch, holding what it reads, or for the
	// head of use (again), reserving its whole body first.
	start := func(i int, head bool) {
		results[i] = make(chan entryResult, 1)
		if r, done := pl.settled(ctx, p, entries[i]); done {
			results[i] <- r
			return
		}
		h := &bodyHold{node: pl.node}
		if head {
			if !pl.node.reserve(reserve, true) {
				results[i] <- entryResult{full: true}
				return
			}
			h.held = reserve
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			got := pl.fetchEntry(ctx, p, entries[i], h)
			got.reserved, got.ahead = h.held, !head
			results[i] <- got
		}()
	}
	next := 0
	for i := range entries {
		for ; next < len(entries) && next < i+fetchAhead*workers; next++ {
			start(next, false)
		}
		got := <-results[i]
		if got.full && got.ahead {
			// Refused room: let go of what runs ahead too, so that the poll
			// holds nothing while it waits for room for this entry, and no
			// two polls wait for each other; they are fetched again after it.
			for j := i + 1; j < next; j++ {
				r := <-results[j]
				pl.node.release(r.reserved)
			}
			next = i + 1
			pl.node.release(got.reserved)
			start(i, true)
			got = <-results[i]
		}
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

// settled is the result of an entry that needs no fetch, and true; or
// false when it must be fetched.
func (pl *poller) settled(ctx context.Context, p peer, e manifest.Entry) (entryResult, bool) {
	switch {
	case e.File == "":
		return entryResult{}, true
	case ctx.Err() != nil:
		return entryResult{retry: true}, true
	case pl.seen(p.url, e.Hash) && !pl.rereading[p.url]:
		return entryResult{dup: true}, true
	}
	return entryResult{}, false
}

// fetchEntry fetches one file and verifies it (integrity.Verifier.Fetch),
// its body held by h as it is read.
func (pl *poller) fetchEntry(ctx context.Context, p peer, e manifest.Entry, h *bodyHold) entryResult {
	if ctx.Err() != nil {
		return entryResult{retry: true}
	}
	v := integrity.Verifier{Get: getHeld(pl.client, p, h)}
	got, err := v.Fetch(ctx, integrity.Claim{Base: p.url, File: e.File, Hash: e.Hash, MaxBytes: pl.limits.trace})
	if err == nil {
		f := fetched{entry: e, url: got.URL, raw: got.Body}
		return entryResult{file: &f, requests: 1, warn: f.read(p.name, p.url, pl.copies.mayKeep)}
	}
	if fetch.IsKind(err, fetch.KindHeld) {
		return entryResult{full: true, requests: 1}
	}
	var ie *integrity.Error
	if !errors.As(err, &ie) {
		return entryResult{retry: true, warn: fmt.Sprintf("seq %d: %v", e.Seq, err)}
	}
	r := entryResult{warn: fmt.Sprintf("seq %d: %v", e.Seq, err)}
	if ie.Requested {
		r.requests = 1
	}
	switch {
	case ie.Kind == integrity.KindPath, ie.Kind == integrity.KindAttestation:
		// Neither gets better by asking again.
		r.rejected = r.warn
	case ie.Kind == integrity.KindHash && p.mirror != "":
		// The mirror's fault, not the peer's: no dispute, and the
		// origin's copy is read once it answers.
		r.retry = true
		r.warn = fmt.Sprintf("seq %d: mirror %s served %s, not the logged %s: refused, asked again next poll", e.Seq, p.mirror, ie.Served, e.Hash)
	case ie.Kind == integrity.KindHash:
		r.mismatch = &mismatch{entry: e, url: ie.URL, served: ie.Served}
	default:
		r.retry = true
	}
	return r
}

// verifierOf reads p's files through client, under p's base URL and
// address guard.
func verifierOf(client *fetch.Client, p peer) integrity.Verifier {
	return integrity.Verifier{Get: getHeld(client, p, nil)}
}

// getHeld gets p's files through client, their bodies held by h as they
// are read (nil: not held).
func getHeld(client *fetch.Client, p peer, h *bodyHold) func(context.Context, string, int64) ([]byte, error) {
	return func(ctx context.Context, u string, max int64) ([]byte, error) {
		r := p.request(u, max)
		if rest, ok := strings.CutPrefix(u, p.url); ok && p.mirror != "" {
			r.URL, r.Within = p.mirror+rest, p.mirror // the same path, on the mirror
		}
		if h != nil {
			r.Hold = h.grow
		}
		resp, err := client.Get(ctx, r)
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}
}

// read parses a verified file of the peer named author, polled at
// authorURL, as what its row publishes (node.KindOf), and reads from a
// trace what the ledger and the copies keep of it, so that its bytes can
// go once handed on (poller.handOn), and returns what went wrong, if anything, for the poll's log. A
// validation that does not parse is still a validation: it is recorded as
// one that counts for nothing, never taken for a trace. A trace's copy is
// taken only when mayKeep says it could be kept.
func (f *fetched) read(author, authorURL string, mayKeep func(string, manifest.Entry) bool) string {
	f.kind = node.KindOf(f.entry)
	if f.kind == node.KindTrace {
		f.verdicts = ledger.VerdictsOf(f.raw, author)
	}
	switch f.kind {
	case node.KindValidation:
		v, err := validation.Parse(f.raw)
		if err != nil {
			f.val = &validation.Validation{}
			return fmt.Sprintf("seq %d: validation unreadable: %v", f.entry.Seq, err)
		}
		f.val = v
	case node.KindTrace:
		keep := mayKeep(authorURL, f.entry)
		f.copyLetGo = !keep
		t, err := trace.Parse(f.raw)
		if err != nil {
			if keep {
				f.copy = copies.Of(authorURL, f.raw)
			}
			return fmt.Sprintf("seq %d: trace metadata unreadable: %v", f.entry.Seq, err)
		}
		f.trace = t
		f.fingerprint = score.Fingerprint(t.Body)
		if keep {
			f.copy = copies.Of(authorURL, t.Body)
		}
	case node.KindDispute:
		d, err := dispute.Parse(f.raw)
		if err != nil {
			return fmt.Sprintf("seq %d: dispute unreadable: %v", f.entry.Seq, err)
		}
		f.disp = d
	}
	return ""
}
