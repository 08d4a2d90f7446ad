package queue

import (
	"slices"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"

	"github.com/meshnode/meshnode/internal/validation"
)

// Statuses of an item. docs/protocol.md §12.4 has queued → in_progress → acked | done |
// failed; a validation has no "acked" step, and "skipped" records work
// deliberately not done (our own trace, an unverifiable hash).
const (
	StatusQueued     = "queued"
	StatusInProgress = "in_progress"
	StatusDone       = "done"
	StatusFailed     = "failed"
	StatusSkipped    = "skipped"
)

// DefaultLease is how long a claim lasts when the caller gives no lease:
// docs/protocol.md §12.3's "lease default 2m".
const DefaultLease = 2 * time.Minute

// Item is one trace waiting to be validated, with its claim.
type Item struct {
	ID       string        `json:"id,omitempty"`   // validation.ID of the trace hash, as in val-<id>.md; a settled file leaves it to the key
	Hash     manifest.Hash `json:"hash,omitempty"` // "sha256:<hex>"; a settled file leaves it to the key
	From     string        `json:"from"`           // the agent that published the trace
	FromURL  string        `json:"from_url"`
	TraceURL string        `json:"trace_url"`
	Type     string        `json:"type,omitempty"`
	Title    string        `json:"title,omitempty"`
	// Seq and Submitted come from the peer's MANIFEST row, so the trace can
	// be scored later without reading the manifest again.
	Seq       manifest.Seq `json:"seq,omitempty"`
	Submitted time.Time    `json:"submitted,omitzero"`

	Status    string    `json:"status"`
	Reason    string    `json:"reason,omitempty"`
	QueuedAt  time.Time `json:"queued_at"`
	UpdatedAt time.Time `json:"updated_at,omitzero"` // a settled file leaves it out when it is QueuedAt

	// The claim (docs/protocol.md §12): who holds the item, until when, and the
	// version every update must present.
	Owner        string    `json:"owner,omitempty"`
	LeaseExpires time.Time `json:"lease_expires,omitzero"`
	Version      int       `json:"version"`

	// Suggested scores, their reasons (dimension → reasons) and notes are
	// filled when a person must score: the heuristic's proposal.
	Suggested        *validation.Scores  `json:"suggested,omitempty"`
	SuggestedReasons map[string][]string `json:"suggested_reasons,omitempty"`
	SuggestedNotes   string              `json:"suggested_notes,omitempty"`

	// Result is what a worker's scorer judged, stored with its Finish as
	// done, for the node to publish (docs/queue.md).
	Result *Result `json:"result,omitempty"`
}

// forgetUnread drops what nothing reads once the item is settled: the
// reasons and notes of a suggestion, and the trace's title. Only a person
// scoring an item still queued or in progress reads the first (meshnode
// score --pr), and a settled item never returns to queued or in progress
// (Apply moves it only between terminal statuses), so they would be kept
// for no one, in the settled file, for SettledRetention. The title is read
// to score the trace and to draft a person's pull request, both of a
// waiting item; of a settled one only `inbox --json` showed it, and the
// ledger and the site keep it (docs/decisions.md, "What a settled item
// keeps": 35 of the 105 bytes it pushed). The suggested scores stay: the
// inbox shows them. A result keeps its reasons and notes: a result marked
// published without a validation (one existed already, the trace was not
// one this node verified, the scores were out of range) has no other
// record of what its worker said.
func (it *Item) forgetUnread() {
	it.SuggestedReasons, it.SuggestedNotes = nil, ""
	it.Title = ""
}

// Terminal reports whether the item's status is final.
func (it *Item) Terminal() bool {
	switch it.Status {
	case StatusDone, StatusFailed, StatusSkipped:
		return true
	}
	return false
}

// claimable reports whether a worker may claim the item at now: it is
// queued and not Withheld, or in progress under a lease that has expired.
func (it *Item) claimable(now time.Time) bool {
	return (it.Status == StatusQueued && !it.Withheld()) || (it.Status == StatusInProgress && !now.Before(it.LeaseExpires))
}

// Withheld reports whether the item is queued and noted as waiting for
// its peer to list its trace again (WaitWithdrawn): no claim hands it
// out, so no scorer publishes a validation naming as where the trace is
// published a URL its author took it down from, until the node, which
// alone holds the listings, clears the note (docs/decisions.md, "Names").
func (it *Item) Withheld() bool {
	return it.Status == StatusQueued && it.Reason == WaitWithdrawn
}

func (it *Item) normalize() {
	for _, t := range []*time.Time{&it.Submitted, &it.QueuedAt, &it.UpdatedAt, &it.LeaseExpires} {
		if !t.IsZero() {
			*t = t.UTC().Round(0)
		}
	}
}

// clone returns a copy of it that shares no memory with it.
func (it *Item) clone() *Item {
	c := *it
	if it.Suggested != nil {
		s := *it.Suggested
		c.Suggested = &s
	}
	c.SuggestedReasons = cloneReasons(it.SuggestedReasons)
	if it.Result != nil {
		r := *it.Result
		r.Reasons = cloneReasons(r.Reasons)
		c.Result = &r
	}
	return &c
}

func cloneReasons(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// MoveTo lists the item at the peer URL to if it is listed at from, and
// reports whether it was: its FromURL becomes to, and its TraceURL, when
// under from, goes under to, as the ledger moves an agent's file URLs
// (ledger.Ledger.Rename). Everything else stays: the ID, the status, the
// claim with its owner, lease and version (a worker holding it finishes
// it as if nothing moved), a suggestion and a worker's result. Every
// store moves items by this rule (Store.Rename).
func (it *Item) MoveTo(from, to string) bool {
	if it.FromURL != from {
		return false
	}
	it.FromURL = to
	if rest, ok := strings.CutPrefix(it.TraceURL, from); ok {
		it.TraceURL = to + rest
	}
	return true
}

// Record returns the trace the item queues as the ledger keeps a trace:
// its author and the author's trace URL, its seq, hash and URL, and its
// type, title and submitted time from its MANIFEST row.
func (it *Item) Record() ledger.Trace {
	return ledger.Trace{
		Agent: it.From, AgentURL: it.FromURL, Seq: it.Seq, Hash: it.Hash, URL: it.TraceURL,
		Type: it.Type, Title: it.Title, Submitted: it.Submitted,
	}
}
