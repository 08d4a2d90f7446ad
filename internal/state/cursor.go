package state

import (
	"maps"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Cursor is what the node remembers of one peer: how far it has read, when
// it polled, how the peer has been failing, and what a conditional request
// needs. The protocol's cursor is the highest seq processed
// (docs/protocol.md §6.2), kept as last_seen_seq beside last_polled,
// failure_count and backoff; the rest extends it.
type Cursor struct {
	Agent        string       `json:"agent,omitempty"`
	LastSeenSeq  manifest.Seq `json:"last_seen_seq"`
	LastPolled   time.Time    `json:"last_polled,omitzero"`
	LastSuccess  time.Time    `json:"last_success,omitzero"`
	FailureCount int          `json:"failure_count,omitempty"`
	Backoff      string       `json:"backoff,omitempty"` // "", BackoffHourly, BackoffDaily, BackoffWeekly
	FirstFailure time.Time    `json:"first_failure,omitzero"`
	Status       string       `json:"status,omitempty"` // "", StatusUnreachable, StatusGone
	LastError    string       `json:"last_error,omitempty"`

	// Gaps are seqs at or below LastSeenSeq the peer has not listed yet.
	// They are asked for again at every poll: docs/protocol.md §6 expects a peer to
	// backfill after a failed publish, so a gap must never be skipped
	// forever.
	Gaps Ranges `json:"gaps,omitempty"`
	// Retry lists seqs that were listed but could not be fetched (a
	// transient failure); they are fetched again at the next poll.
	Retry []manifest.Seq `json:"retry,omitempty"`
	// Backlog is set when the last poll stopped at a budget or the
	// deadline with wanted entries left above LastSeenSeq: the next poll
	// reads the manifest even when it did not change, so a peer with more
	// than one heartbeat's worth is read in full without publishing again.
	Backlog bool `json:"backlog,omitempty"`

	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// ManifestSum fingerprints the MANIFEST bytes last read (SumManifest),
	// so that a body equal to them is not parsed again.
	ManifestSum     string    `json:"manifest_sum,omitempty"`
	ManifestUpdated time.Time `json:"manifest_updated,omitzero"` // the peer's own `updated:`
	// NewestEntry is the newest `submitted` time among the rows of the
	// MANIFEST last read (presence.Newest): with ManifestUpdated, the
	// public evidence presence is judged by (docs/decisions.md).
	NewestEntry time.Time `json:"newest_entry,omitzero"`
	// Rules is the rule set the peer's MANIFEST.md declares ("rules:"),
	// "" when it declares none (docs/decisions.md, Rule sets).
	Rules string `json:"rules,omitempty"`
	// Pages is where the peer serves its traces as pages for people, as
	// its MANIFEST.md says ("pages:", manifest.PageURL); "" when it does
	// not say.
	Pages string `json:"pages,omitempty"`

	// LastNews is when a poll last found a new seq, or first found the
	// peer; the quiet schedule counts from it (docs/decisions.md).
	LastNews time.Time `json:"last_news,omitzero"`
	// NewsPerDay counts new seqs by UTC day (YYYY-MM-DD) over the spike
	// window, for the 7-day rate a spike is measured against.
	NewsPerDay map[string]int `json:"news_per_day,omitempty"`
	// Schedule is the adaptive schedule the last successful poll applied;
	// with LastNews and the peer's URL it gives the quiet peer's due times
	// (Due, NextPollAt), so a poll that finds nothing new changes nothing
	// stored. Absent while every peer is polled every heartbeat.
	Schedule *Schedule `json:"schedule,omitempty"`
	// NextPoll is when a quiet peer is polled next as of LastPolled,
	// derived by the poll (RecordActivity); zero while it is polled every
	// heartbeat. Like the poll times, it alone does not rewrite the
	// peer's file, so the stored one is as old as the stored last_polled.
	// Due and Next derive the due time from Schedule instead; only a
	// cursor without one (an older node's file) is scheduled by it.
	NextPoll time.Time `json:"next_poll,omitzero"`

	// LogProbed is when the signed-log reader last looked in the peer's
	// IDENTITY.md (internal/logsource), for a log key while it publishes
	// none, then for its mirrors: at most once a day, on a poll that found
	// news.
	LogProbed time.Time `json:"log_probed,omitzero"`

	// LearnedFrom is the URL of the peer whose AGENTS.md listed this one,
	// or "" for a peer of our own AGENTS.md.
	LearnedFrom string `json:"learned_from,omitempty"`

	// url is the peer's trace URL, the key the State keeps the cursor
	// under; its hash spreads quiet peers over the heartbeats.
	url string
}

// normalized returns a copy fit for writing: times in UTC, gaps merged and
// capped, retries sorted, unique and capped. The copy shares nothing that
// c changes in place: the State keeps it as what the cursor's file holds,
// so a count of news added to c later must not change it too.
func (c *Cursor) normalized() *Cursor {
	n := *c
	n.NewsPerDay = maps.Clone(c.NewsPerDay)
	for _, t := range []*time.Time{&n.LastPolled, &n.LastSuccess, &n.FirstFailure, &n.ManifestUpdated, &n.NewestEntry, &n.LastNews, &n.NextPoll, &n.LogProbed} {
		*t = utc(*t)
	}
	if c.Schedule != nil {
		plan := *c.Schedule
		n.Schedule = &plan
	}
	n.Gaps = c.Gaps.Normalize()
	n.Retry, n.Gaps = capRetry(c.Retry, n.Gaps)
	return &n
}

// Unread reports whether the last poll left entries of the manifest it
// read to fetch (a retry list or a backlog), so the next poll must read
// the manifest even when it did not change.
func (c *Cursor) Unread() bool { return len(c.Retry) > 0 || c.Backlog }
