// Package report holds what one heartbeat did, the Summary: the JSON that
// `meshnode heartbeat --summary FILE` writes and the commit step reads
// (docs/contracts.md), and its text form. It imports nothing of ours but the
// format package manifest, for hashes, and peertext, for the text form, so
// a reader of a summary (gitpush) need not import the heartbeat job.
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/peertext"
)

// Summary is what one heartbeat did. Its JSON form is the contract the
// workflow's commit step reads (docs/contracts.md).
type Summary struct {
	PeersPolled      int `json:"peers_polled"`
	PeersSkipped     int `json:"peers_skipped"`
	PeersQuiet       int `json:"peers_quiet"`
	PeersFailed      int `json:"peers_failed"`
	PeersRateLimited int `json:"peers_rate_limited"`
	PeersLearned     int `json:"peers_learned"`
	PeersWithNew     int `json:"peers_with_new"`
	NewTraces        int `json:"new_traces"`
	NewValidations   int `json:"new_validations"`
	Verified         int `json:"verified"`
	Rejected         int `json:"rejected"`
	Duplicates       int `json:"duplicates"`
	Gaps             int `json:"gaps"`
	Queued           int `json:"queued"`
	// Unassigned counts the peers' traces recorded but not queued because
	// their jury does not name this node (mesh-2026-4 and later: docs/decisions.md,
	// Assignment).
	Unassigned int `json:"unassigned,omitempty"`
	// Away is set when this node is away under mesh-2026-5 (juries pass
	// over it: docs/decisions.md, Assignment, Jurors away), and Presence
	// is the trace not assigned to it that it queued to validate, so that
	// it is drawn again from the next day on (counted in Queued, not in
	// Unassigned; its vote earns nothing).
	Away     bool   `json:"away,omitempty"`
	Presence string `json:"presence,omitempty"`
	// Reserve counts the traces of this node's reserve (or, under
	// mesh-2026-7, late reserve) the queue took because they came due
	// short of votes (mesh-2026-6: docs/decisions.md, Assignment, The
	// reserve, The late reserve), counted in Queued too; those its bounds
	// held back are in HeldBack, and tried again at the next heartbeat.
	Reserve              int    `json:"reserve,omitempty"`
	ValidationsPublished int    `json:"validations_published"`
	TracesPublished      int    `json:"traces_published"`
	DisputesPublished    int    `json:"disputes_published"`
	Waiting              int    `json:"waiting"`
	WaitingReason        string `json:"waiting_reason,omitempty"`
	Standing             string `json:"standing,omitempty"`      // where the node stands (signal.Progress)
	StandingNext         string `json:"standing_next,omitempty"` // without standing, what to do next
	// Rules is the rule set the node computes with (FOUNDERS.md), and
	// RulesUnknown is set when this node does not implement it: it then
	// publishes every trace of its own as pending and validates nothing.
	Rules        string `json:"rules,omitempty"`
	RulesUnknown bool   `json:"rules_unknown,omitempty"`
	// RulesDiffer lists the peers whose MANIFEST.md declares another rule
	// set than ours: their statuses and SIGNAL differ from ours.
	RulesDiffer    []RulesPeer `json:"rules_differ,omitempty"`
	HashMismatches []Mismatch  `json:"hash_mismatches"`
	Failures       []Failure   `json:"failures"`
	Unreachable    []string    `json:"unreachable"`
	Spikes         []Spike     `json:"spikes"`
	// Held lists our own files left unpublished until a person fixes
	// them (a draft, a file that does not parse, a name or a kind the node
	// never publishes), in publication order.
	Held []Held `json:"held,omitempty"`
	// HeldBack lists what a bound on what peers can make us publish kept
	// back this heartbeat, by peer, with why (docs/security.md, "Every
	// limit and why").
	HeldBack []HeldBack `json:"held_back,omitempty"`
	// Copies lists the traces read this heartbeat whose bytes another
	// agent lists too: each is recorded as its lister's, and under
	// mesh-2026-3 earns nobody (docs/decisions.md, "Copies").
	Copies []Copy `json:"copies,omitempty"`
	// AgentsSkipped are the lines of our AGENTS.md skipped as no agent
	// line (roster.Problem's text, "AGENTS.md:3: …; line skipped"), in
	// file order: their agents are never polled until a person fixes them.
	AgentsSkipped []string `json:"agents_skipped,omitempty"`
	Changed       bool     `json:"changed"`
	// LogUnsigned says why no signed log was published this run (no key,
	// or a key IDENTITY.md does not publish) and how to set the key;
	// MANIFEST.md is published all the same.
	LogUnsigned string `json:"log_unsigned,omitempty"`
	// LogsRefused lists the peers whose signed log contradicted itself
	// (a fork, a bad signature, a key change, an altered entry or tile,
	// a log gone): their new entries wait until an operator re-pins them
	// (docs/decisions.md, "Reading a peer's signed log").
	LogsRefused []LogRefused `json:"logs_refused,omitempty"`
	// Relays lists the relays read, by URL, with their state: ok,
	// lagging (it vouches for nothing) or faulted (not read until an
	// operator acts: docs/decisions.md, "Relays").
	Relays []Relay `json:"relays,omitempty"`
	// RelaySkipped counts the peers not polled because a relay listed
	// the checkpoint the node holds, within relays.direct_poll.
	RelaySkipped int `json:"relay_skipped,omitempty"`
	// Interrupted: a signal stopped the run early. What it did is saved;
	// peers it did not poll and traces it did not score wait for the next.
	Interrupted bool `json:"interrupted,omitempty"`

	// The polling strategy's counters for this run, as `meshnode watch`
	// serves them on /metrics (docs/contracts.md): HTTP requests (retries
	// and robots.txt included), failed fetches by fetch.Kind, rate-limit
	// answers, the time polling every peer took, the longest host
	// cooldown still running at the end, and the queue: items waiting
	// (queued or in progress) and items by status.
	RequestsTotal      int64            `json:"requests_total"`
	RequestsFailed     map[string]int64 `json:"requests_failed"`
	RateLimitHits      int64            `json:"rate_limit_hits"`
	PollLatencySeconds float64          `json:"poll_latency_seconds"`
	BackoffSeconds     float64          `json:"backoff_seconds"`
	InboxSize          int              `json:"inbox_size"`
	QueueDepth         map[string]int   `json:"queue_depth"`
}

// Relay is a relay the node reads and its state this heartbeat.
type Relay struct {
	URL     string `json:"url"`
	State   string `json:"state"` // ok, lagging or faulted
	Size    int64  `json:"size"`  // its log's size accepted
	Read    int64  `json:"read"`  // its entries read
	Agents  int    `json:"agents"`
	Fault   string `json:"fault,omitempty"`
	Problem string `json:"problem,omitempty"` // this heartbeat's failure to read it
}

// Held is one of our files that publication left out, and why.
type Held struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// HeldBack is what one bound kept back of one peer's in one heartbeat:
// Count items, and why.
type HeldBack struct {
	Peer   string `json:"peer"`
	URL    string `json:"url"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

// Copy is a trace a peer lists whose bytes another agent (Of, its URL
// OfURL) listed first as we read them.
type Copy struct {
	Peer  string        `json:"peer"`
	URL   string        `json:"url"`
	Seq   manifest.Seq  `json:"seq"`
	Hash  manifest.Hash `json:"hash"`
	Of    string        `json:"of"`
	OfURL string        `json:"of_url"`
}

// RulesPeer is a peer that computes with another rule set than ours.
type RulesPeer struct {
	Peer  string `json:"peer"`
	URL   string `json:"url"`
	Rules string `json:"rules"`
	// Known is false when this node does not implement the peer's rules.
	Known bool `json:"known"`
	// Note says so in one line (signal.RulesNote).
	Note string `json:"note"`
}

// Mismatch is a file whose bytes did not match the hash its MANIFEST lists.
type Mismatch struct {
	Peer    string        `json:"peer"`
	URL     string        `json:"url"`
	Seq     manifest.Seq  `json:"seq"`
	Claimed manifest.Hash `json:"claimed"`
	Served  manifest.Hash `json:"served"`
}

// Spike is a peer that published at least polling.spike_factor times its
// 7-day daily average today (docs/decisions.md).
type Spike struct {
	Peer       string  `json:"peer"`
	URL        string  `json:"url"`
	NewToday   int     `json:"new_today"`
	DailyAvg7d float64 `json:"daily_avg_7d"`
}

// LogRefused is a peer whose log is refused: Kind is the alarm's kind,
// State the words `meshnode peers` shows (logpin.State).
type LogRefused struct {
	Peer  string `json:"peer"`
	URL   string `json:"url"`
	Kind  string `json:"kind"`
	State string `json:"state"`
}

// Failure is a failed poll of one peer.
type Failure struct {
	Peer  string `json:"peer"`
	URL   string `json:"url"`
	Error string `json:"error"`
}

// SortLists puts every list in a fixed order and makes empty ones empty
// arrays, so the same heartbeat always writes the same JSON.
func (s *Summary) SortLists() {
	sort.Slice(s.HashMismatches, func(i, j int) bool {
		a, b := s.HashMismatches[i], s.HashMismatches[j]
		if a.Peer != b.Peer {
			return a.Peer < b.Peer
		}
		return a.Seq < b.Seq
	})
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].Peer < s.Failures[j].Peer })
	sort.Slice(s.RulesDiffer, func(i, j int) bool { return s.RulesDiffer[i].URL < s.RulesDiffer[j].URL })
	sort.Strings(s.Unreachable)
	sort.Slice(s.HeldBack, func(i, j int) bool {
		a, b := s.HeldBack[i], s.HeldBack[j]
		if a.URL != b.URL {
			return a.URL < b.URL
		}
		return a.Reason < b.Reason
	})
	sort.Slice(s.Spikes, func(i, j int) bool { return s.Spikes[i].URL < s.Spikes[j].URL })
	sort.Slice(s.LogsRefused, func(i, j int) bool { return s.LogsRefused[i].URL < s.LogsRefused[j].URL })
	sort.Slice(s.Copies, func(i, j int) bool {
		a, b := s.Copies[i], s.Copies[j]
		if a.URL != b.URL {
			return a.URL < b.URL
		}
		return a.Seq < b.Seq
	})
	if s.Spikes == nil {
		s.Spikes = []Spike{}
	}
	if s.HashMismatches == nil {
		s.HashMismatches = []Mismatch{}
	}
	if s.Failures == nil {
		s.Failures = []Failure{}
	}
	if s.Unreachable == nil {
		s.Unreachable = []string{}
	}
}

// WriteText writes the short human summary printed at the end of a run.
func (s *Summary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "peers: %d polled, %d skipped (%d quiet, %d by backoff), %d failed, %d rate-limited, %d learned\n",
		s.PeersPolled, s.PeersSkipped, s.PeersQuiet, s.PeersSkipped-s.PeersQuiet, s.PeersFailed, s.PeersRateLimited, s.PeersLearned)
	fmt.Fprintf(w, "files: %d new traces, %d new validations, %d verified, %d rejected, %d already seen, %d seqs missing\n",
		s.NewTraces, s.NewValidations, s.Verified, s.Rejected, s.Duplicates, s.Gaps)
	fmt.Fprintf(w, "published: %d validations, %d traces, %d disputes; %d queued, %d waiting",
		s.ValidationsPublished, s.TracesPublished, s.DisputesPublished, s.Queued, s.Waiting)
	if s.WaitingReason != "" {
		fmt.Fprintf(w, " (%s)", s.WaitingReason)
	}
	if s.Unassigned > 0 {
		fmt.Fprintf(w, "; %d assigned to other validators", s.Unassigned)
	}
	if s.Reserve > 0 {
		fmt.Fprintf(w, "; %d short of votes, stepped in as reserve", s.Reserve)
	}
	if s.Away {
		fmt.Fprint(w, "; away: juries pass over this node")
		if s.Presence != "" {
			fmt.Fprintf(w, ", 1 unassigned trace queued to be drawn again (%s)", s.Presence)
		}
	}
	fmt.Fprintln(w)
	if s.StandingNext != "" {
		fmt.Fprintf(w, "%s\nnext: %s\n", s.Standing, s.StandingNext)
	}
	if s.RulesUnknown {
		fmt.Fprintf(w, "rules: FOUNDERS.md names rule set %s, which this meshnode does not implement: statuses left pending, nothing validated; upgrade meshnode\n", s.Rules)
	}
	for _, r := range s.RulesDiffer {
		fmt.Fprintf(w, "rules: %s\n", r.Note)
	}
	if s.LogUnsigned != "" {
		fmt.Fprintf(w, "log: %s\n", s.LogUnsigned)
	}
	for _, l := range s.LogsRefused {
		fmt.Fprintf(w, "log refused: %s: %s\n", l.Peer, oneLine(l.State))
	}
	for _, r := range s.Relays {
		if r.State != "ok" || r.Problem != "" {
			fmt.Fprintf(w, "relay %s: %s %s%s\n", r.State, r.URL, oneLine(r.Fault), oneLine(r.Problem))
		}
	}
	for _, m := range s.HashMismatches {
		fmt.Fprintf(w, "hash mismatch: %s seq %d %s\n", m.Peer, m.Seq, m.URL)
	}
	for _, f := range s.Failures {
		fmt.Fprintf(w, "failed: %s: %s\n", f.Peer, oneLine(f.Error))
	}
	for _, sp := range s.Spikes {
		fmt.Fprintf(w, "spike: %s published %d today, %.1f a day over the week before\n", sp.Peer, sp.NewToday, sp.DailyAvg7d)
	}
	if len(s.Unreachable) > 0 {
		fmt.Fprintf(w, "unreachable: %s\n", strings.Join(s.Unreachable, ", "))
	}
	if s.Interrupted {
		fmt.Fprintln(w, "interrupted: what was done is saved; peers not polled and traces not scored wait for the next heartbeat")
	}
	for _, a := range s.AgentsSkipped {
		fmt.Fprintln(w, oneLine(a))
	}
	for _, h := range s.Held {
		fmt.Fprintf(w, "not published: %q: %s\n", h.File, oneLine(h.Reason))
	}
	for _, h := range s.HeldBack {
		fmt.Fprintf(w, "held back: %s: %d %s\n", h.Peer, h.Count, oneLine(h.Reason))
	}
	for _, c := range s.Copies {
		fmt.Fprintf(w, "copy: %s seq %d has the bytes of %s's trace %s\n", c.Peer, c.Seq, c.Of, c.Hash)
	}
}

// maxLineText bounds a value's part of a line of the text form.
const maxLineText = 200

// oneLine is s as a value of one line of the text form, printed to the
// operator's terminal: through peertext.Clean, since an error, an alarm
// or a fault quotes what a peer or a relay served (a line feed becomes a
// space, a control U+FFFD), then cut at a character's boundary.
func oneLine(s string) string {
	s = peertext.Clean(s)
	if len(s) > maxLineText {
		cut := maxLineText
		for !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
