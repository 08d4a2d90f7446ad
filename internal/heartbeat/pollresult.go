package heartbeat

import (
	"context"
	"errors"
	"time"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
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

// fetched is one verified file of a peer and what was read from it. Its
// bytes (raw, and trace, which points into them) are kept only while a
// fetch holds them, and after that only for scoring (kept, job.handOn).
type fetched struct {
	entry manifest.Entry
	url   string
	raw   []byte
	kind  node.Kind              // what the row publishes (node.KindOf)
	trace *trace.Trace           // set for traces whose metadata parsed
	val   *validation.Validation // set for every validation, empty when it did not parse
	disp  *dispute.Dispute       // set for disputes that parsed
	// Read from the bytes by the fetch's goroutine, so the bytes can go:
	// a trace's near-duplicate fingerprint (when its metadata parsed),
	// the verdicts it states about other agents' traces, and the copy
	// the site may republish (internal/copies).
	fingerprint trace.Fingerprint
	verdicts    []ledger.Verdict
	copy        *copies.Copy
	// copyLetGo: no copy was taken, the copies' selection being sure to
	// let go of it (heldCopies.mayKeep).
	copyLetGo bool
}

// mismatch is a file whose served bytes did not hash to the MANIFEST hash.
type mismatch struct {
	entry  manifest.Entry
	url    string
	served manifest.Hash
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
	listed     *listing         // what its MANIFEST.md lists, when read whole
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
