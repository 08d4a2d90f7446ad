package queue

import (
	"errors"
	"time"

	"github.com/meshnode/meshnode/internal/validation"
)

// ErrConflict is returned when an update presents a version or owner that
// is no longer current: the lease was taken over, or a person decided.
var ErrConflict = errors.New("queue item changed since it was claimed")

// ErrNotFound is returned for an ID the queue does not hold.
var ErrNotFound = errors.New("no such queue item")

// ErrNoResult is returned by a Publish of an item that is not done with a
// stored Result.
var ErrNoResult = errors.New("no stored result to publish")

// ErrPublished is returned by a Publish of a Result already published.
var ErrPublished = errors.New("result already published")

// Store is where a node's validation queue lives. File (mesh-state/
// queue.json) is the embedded store; a shared database can implement the
// same operations so that several processes score one node's queue.
// Every operation is atomic as a whole: it is applied entirely or not at
// all, and concurrent callers see one before the other.
type Store interface {
	// Init creates the store when it does not exist yet.
	Init() error
	// Enqueue adds the items whose hash the store does not hold yet,
	// whatever the status of the one it holds, and returns how many.
	Enqueue(items ...Item) (added int, err error)
	// Queued returns the items waiting for a worker, oldest first.
	Queued() ([]Item, error)
	// Claim gives c.Owner the items it asks for (see Claim).
	Claim(c Claim) ([]Item, error)
	// Update applies updates in order and returns one error per update
	// (nil when it applied; ErrConflict or ErrNotFound wrapped when not),
	// and err when the store itself failed, in which case none applied.
	Update(updates ...Update) (results []error, err error)
	// List returns every item, oldest first: the inbox.
	List() ([]Item, error)
	// Active returns what a heartbeat reads of the queue every time: the
	// items not settled, and the settled ones counted (see Active).
	Active() (Active, error)
	// Drop removes the items with these IDs that are not settled
	// (Item.Settled), whoever holds them, and returns how many it removed;
	// an ID settled or not held is passed over, and nothing is written
	// when none is removed. The node drops the items of a peer it forgot,
	// so that their traces can be queued again from the agent that lists
	// them (docs/decisions.md, "Names").
	Drop(ids ...string) (dropped int, err error)
	// Rename moves every item listed at the peer URL from, at work or
	// settled, to the URL to (Item.MoveTo: IDs, statuses, claims and
	// results kept), in one write, and returns how many it moved; nothing
	// is written when none is listed at from. The node renames an agent
	// whose URL changed, with its cursor and ledger records
	// (docs/decisions.md, "Names"), so that a worker's result waiting for
	// it is published at the new URL and nothing is scored twice.
	Rename(from, to string) (moved int, err error)
}

// Active is the part of the queue at work: the items that are not
// settled (Item.Settled), oldest first, and how many settled items the
// store keeps, by status (done, failed, skipped, each present). The
// settled items themselves stay unread: a heartbeat that finds nothing
// new does not read them (docs/decisions.md, "A quiet heartbeat").
type Active struct {
	Items   []Item
	Settled map[string]int
	// Expired is true when some settled items were settled more than
	// SettledRetention ago: they are counted until a write drops them
	// (an Update, even of no item, does).
	Expired bool
}

// Claim asks for items to work on. The items Owner already holds in
// progress come first, as they are, expired lease or not and without a
// new version: a worker that crashed between claiming and finishing picks
// up where it stopped, and its rerun ends as an uninterrupted run would.
// Then the oldest items that are queued, or in progress under an expired
// lease (a takeover), each with a new version.
type Claim struct {
	Owner  string
	Now    time.Time
	Lease  time.Duration   // how long the claim lasts; DefaultLease when ≤ 0
	Max    int             // items at most, resumed ones included; 0 means no limit
	Filter func(Item) bool // which items to take (resumed ones are not filtered); nil takes all
}

// Kind says what an Update does.
type Kind int

// Kinds of update.
const (
	// Finish ends Owner's claim with a terminal Status, checking Version.
	Finish Kind = iota + 1
	// Renew extends Owner's lease to At+Lease, checking Version; the
	// version stays, so the holder's later updates still apply.
	Renew
	// Release gives Owner's claim back: the item is queued again.
	Release
	// Decide records a person's explicit decision, a terminal Status,
	// whatever the item's status and claim; its holder then gets
	// ErrConflict.
	Decide
	// Suggest stores a scorer's proposal for the person who will score.
	Suggest
	// Publish records that the node published the Result of an item done
	// with one (Result.PublishedAt), so that it is never published twice.
	Publish
	// Note records on a queued item why it waits (Reason; empty when it
	// no longer does), whoever reads the queue next: the heartbeat notes
	// an item whose peer withdrew its trace (WaitWithdrawn: no claim hands
	// it out, Item.Withheld), and the manual scorer's one whose trace
	// failed to fetch (WaitFetchFailed), so that a heartbeat without news
	// need not read the history to look at it again. An item not queued
	// gets ErrConflict.
	Note
)

// WaitWithdrawn is the Reason a queued item is noted with (Note) when its
// own peer withdrew its trace: no suggestion is made for it until the
// trace is listed again, which only news can bring.
const WaitWithdrawn = "waiting: its peer withdrew the trace"

// WaitFetchFailed is the Reason a queued item is noted with (Note) when
// no suggestion could be made for it because its trace failed to fetch
// again (or, rarer, the heuristic failed on it): it is tried again at a
// heartbeat with news, or once the note is old enough (the heartbeat's
// retry), not at every heartbeat.
const WaitFetchFailed = "waiting: its trace failed to fetch again"

// Update is one change to one item.
type Update struct {
	Kind    Kind
	ID      string
	Owner   string // Finish, Renew, Release: the claim's holder
	Version int    // Finish, Renew, Release: the version the claim returned
	Status  string // Finish, Decide: done, failed or skipped
	Reason  string // Finish, Decide, Note
	At      time.Time
	Lease   time.Duration // Renew; DefaultLease when ≤ 0
	// Suggestion is what Suggest stores.
	Suggestion *Suggestion
	// Result, on a Finish with status done, is the scorer's judgement a
	// worker that has no node directory leaves for the node to publish
	// (docs/queue.md).
	Result *Result
}

// Result is a scorer's judgement of an item's trace, kept in the store
// until the node that owns the queue publishes it as a validation.
type Result struct {
	Scores   validation.Scores   `json:"scores"`
	Reasons  map[string][]string `json:"reasons,omitempty"` // dimension → reasons
	Notes    string              `json:"notes,omitempty"`
	Scorer   string              `json:"scorer"` // the scorer's name: heuristic, command
	ScoredAt time.Time           `json:"scored_at"`
	// PublishedAt is when the node published it as a validation; zero
	// until then.
	PublishedAt time.Time `json:"published_at,omitzero"`
}

// Suggestion is a scorer's proposal: scores, their reasons (dimension →
// reasons) and notes.
type Suggestion struct {
	Scores  validation.Scores
	Reasons map[string][]string
	Notes   string
}
