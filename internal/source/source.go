package source

import (
	"context"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/state"
)

// Peer is the peer whose entries are read.
type Peer struct {
	Name string
	URL  string // its base URL, ending in "/"
	// Public: reach it on public addresses only.
	Public bool
}

// Listing is what a Source read of a peer.
type Listing struct {
	// Unchanged: nothing changed since the cursor; the rest is empty.
	Unchanged bool
	// Manifest holds the entries the cursor may want, its sequence and
	// metadata (agent, updated, rules); entries outside it are not
	// missing, only not read now.
	Manifest *manifest.Manifest
	// Read are seq ranges read whole: a seq in one without an entry was
	// never published, so it is no gap.
	Read state.Ranges
	// Truncated: entries the cursor wants above Manifest's sequence were
	// left for the next poll.
	Truncated bool
	// Listed is everything the peer publishes now, when the source read
	// it whole with nothing skipped, else nil: a trace it no longer lists
	// is taken down (docs/decisions.md, "Taking a peer's text down").
	Listed *manifest.Manifest
	// Requests is how many requests the read made.
	Requests int
	// RateLeft is the host's X-RateLimit-Remaining, -1 when not sent.
	RateLeft int
	// Mirror, when set, is the base URL of the mirror the entries were
	// read from, the origin down: their files are fetched from it, under
	// the same paths, and verified against the entries' hashes as from
	// the origin; bytes that do not match are the mirror's fault, retried,
	// never the peer's mismatch.
	Mirror string
	// Release, when set, gives back what the source holds for the
	// listing (memory reserved to parse it); the poll calls it when done.
	Release func()
}

// Source reads a peer's entries. Read updates c's source fields (its
// validators, the hash of what it read, the peer's updated time and
// newest entry) and leaves the seq fields (LastSeenSeq, Gaps, Retry) to
// the poll's plan. A returned error is the poll's failure, judged by
// fetch's kinds; a Listing may come with it to count its requests.
type Source interface {
	Read(ctx context.Context, p Peer, c *state.Cursor) (*Listing, error)
}
