package site

import (
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
)

// Node is everything the site shows, read from the node's directory by
// Load. The renderer works from a Node alone, so tests can build one by
// hand.
type Node struct {
	// AgentsSkipped are the lines of AGENTS.md that list no agent; Build
	// returns them in its Stats.
	AgentsSkipped []roster.Problem
	Dir           string  // the directory Load read; published files are linked from it (empty: copied)
	Agent         string  // this node's agent name
	URL           string  // this node's trace URL (absolute, ends in "/"); may be empty
	Identity      []Field // IDENTITY.md fields in file order
	Signal        float64 // this node's SIGNAL
	Tier          string  // this node's tier
	// Rules names the rule set SIGNAL was computed with, and RulesSummary
	// says how it is earned under it (signal.Rules.Summary).
	Rules, RulesSummary string
	Updated             time.Time    // MANIFEST "updated:"
	Sequence            manifest.Seq // MANIFEST "sequence:"
	Traces              []*Trace     // our own traces, newest first
	Given               []*Vote      // validations this node published, newest first
	Peers               []*Peer      // every known agent, by name
	Signals             []Standing   // SIGNAL standings, highest first
	Others              []*Ref       // peers' traces seen (for citations), any order
	Votes               []*Vote      // every validation seen, ours and peers', for charts
	Trust               []TrustEdge  // who validated whom, as SIGNAL computed it (signal.Report.Trust)
	Disputes            []Dispute    // hash mismatches: published disputes and the ledger's rejections
	Files               []File       // every published file, copied byte for byte
	Agents              []*Agent     // every agent named anywhere, by name (filled by prepare)
	Now                 time.Time    // the time presence is judged at
}

// Field is one "name: value" line of metadata.
type Field struct {
	Name, Value string
	Unfilled    bool // an IDENTITY.md value left as the template's placeholder (node.IdentityUnfilled)
}

// Trace is one of our own traces with what the mesh said about it.
type Trace struct {
	// Entry is the trace's MANIFEST row: its seq, its hash (the only one
	// that counts), its file relative to the node ("traces/x.md") and its
	// submitted time. Title, type and category are the file's; the type
	// falls back to the row's and the title to the file name. Status is
	// SIGNAL's resolution, the row's where SIGNAL does not hold the trace.
	manifest.Entry
	Passing int // passing validations counted by SIGNAL
	Seen    int // validators counted by SIGNAL (docs/protocol.md §8.1: trace_signal = passing / seen)
	// Copy is SIGNAL's flag: another agent lists the same bytes too, and
	// under mesh-2026-3 they earn nobody (docs/decisions.md, Copies).
	Copy     bool
	Tags     []string
	Meta     []Field  // metadata found in the file, shown as metadata
	Cites    []string // "agent/seq" this trace cites
	CitedBy  []string // "agent/seq" of traces that cite this one
	Body     []byte   // markdown without front matter or trailing block
	Received []*Vote  // validations of this trace, oldest first
}

// Vote is one validation: a validator's scores of one trace.
type Vote struct {
	Validator    string
	ValidatorURL string
	Agent        string // the validated trace's agent, when known
	TraceURL     string
	Read         string // the reading page of the trace's copy, for a peer's trace the node keeps one of; our own trace's page
	TraceHash    manifest.Hash
	TraceTitle   string       // when known
	Seq          manifest.Seq // our MANIFEST's seq of File; 0 for a peer's
	Result       string
	Total        int
	Scores       [6]int
	HasScores    bool
	ValidatedAt  time.Time
	File         string // our own published file, "validations/val-x.md"; else empty
	SourceURL    string // where the validation was read, for a peer's; else empty
}

// TrustEdge is one arrow of the trust graph: the votes, from validation
// files and verdict traces, one agent gave another agent's traces.
type TrustEdge struct {
	Validator, Agent string
	Votes            int
}

// Peer is one known agent and how polling it goes.
type Peer struct {
	Name     string
	URL      string
	Presence string // active, stale, offline, unreachable, unknown (presence.Of)
	// PresenceWords says what the presence rests on: "last published
	// 2026-03-14 04:50 UTC", "not reached yet" (presence.Judgement.Words).
	PresenceWords string
	LastSeenSeq   manifest.Seq
	Failures      int
	LastPolled    time.Time
	LastSuccess   time.Time
	LastError     string
	Traces        int    // traces of this peer seen
	Pages         string // where it serves its traces as pages, its MANIFEST's "pages:" (manifest.PageURL)
	Validations   int    // validations by this peer seen
	LearnedFrom   string
	// Log says how the node reads the peer's entries when it reads its
	// signed log, in logpin.State's words ("log: 300 entries verified",
	// "refused: fork (…)"); "" for a peer read from MANIFEST.md.
	Log string
	// LogAlarm is the kind of the alarm that refuses the peer's log
	// (logpin.AlarmFork …), "" when none.
	LogAlarm string
}

// Standing is one agent's SIGNAL as this node computes it.
type Standing struct {
	Agent       string
	Signal      float64
	Tier        string
	Validated   int       // traces validated
	Validations int       // validations authored
	Breakdown   []Earning // how the SIGNAL was earned, line by line
}

// Earning is one line of a standing's breakdown, in words a visitor
// understands (signal.Describe): "2 knowledge traces validated, sized
// rock, a major piece of work", 12 points.
type Earning struct {
	Words  string
	Points float64
}

// Ref is a peer's trace known from the ledger, enough to link a citation.
type Ref struct {
	Agent     string
	Seq       manifest.Seq
	Hash      manifest.Hash
	Title     string
	URL       string
	Cites     []string // "agent/seq", canonical (see citeKey)
	Submitted time.Time
	// Status is SIGNAL's resolution, the peer's own MANIFEST column where
	// SIGNAL does not hold the trace; Passing and Seen as for a Trace.
	Status        manifest.Status
	Passing, Seen int
	Copy          bool // as for a Trace
	// Ours is our validation of the trace, when we gave one.
	Ours *Vote
	// Page is the trace's page for people where its agent publishes it,
	// when its MANIFEST.md says where its pages are (manifest.PageURL):
	// the node then makes no reading page of its own.
	Page string
	// Text is the copy of the trace the node keeps (internal/copies),
	// nil when it keeps none; Cut says the trace is longer. Excerpt is
	// cut from it, and Read is the page of the site that shows it,
	// "mesh/<16 hex>.html", empty without a copy.
	Text    []byte
	Cut     bool
	Excerpt string
	Read    string
	// Disputed: a dispute says its bytes no longer verify; the node
	// keeps no copy and its feeds leave it out (ledger.Disputed).
	Disputed bool
}

// Href is where a person reads the trace, from a page at root: the
// peer's own page when it publishes one, else our reading page when the
// node keeps a copy, else the trace's file.
func (r *Ref) Href(root string) string {
	switch {
	case r.Page != "":
		return r.Page
	case r.Read != "":
		return root + r.Read
	}
	return r.URL
}

// External reports whether Href leaves the site: the link then carries
// rel="nofollow ugc noopener".
func (r *Ref) External() bool { return r.Read == "" }

// Dispute is a hash mismatch this node saw: a dispute it published, or a
// rejection recorded in its ledger.
type Dispute struct {
	File        string // our published dispute file, "disputes/dispute-x.md"; else empty
	Agent       string
	FileURL     string
	ClaimedHash manifest.Hash
	ServedHash  manifest.Hash
	ObservedAt  time.Time
}

// File is a published file copied into the site unchanged.
type File struct {
	Path string // slash-separated, relative to the node directory
	Data []byte
	// Hash is Data's sha256 where the snapshot made it already (traces,
	// validations, disputes), so the build does not hash them again;
	// empty for the others.
	Hash manifest.Hash
}
