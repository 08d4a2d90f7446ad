package signal

import (
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// Founder is an agent the mesh's founders declaration (FOUNDERS.md) names:
// it has standing from the start. URL is its trace URL, which is what
// identifies it (docs/decisions.md, Standing).
type Founder struct {
	Name, URL string
}

// Input is everything SIGNAL is computed from: public files only. Traces
// and validations are the records the ledger keeps of peers' (and
// FromSnapshot makes of ours); SIGNAL reads of a trace its author, hash,
// seq, type and category, and of a validation its validator, trace hash,
// result and total.
//
// The records are pointers, FromSnapshot's into the ledger's own: a
// heartbeat with news after years holds every record of the history, and
// a copy of each for SIGNAL was a fifth of what it held live
// (docs/decisions.md, "Memory"). Nothing here writes through them, and
// the ledger replaces a record rather than changing it, so an input keeps
// reading the records as they were when it was gathered. No record may be
// nil.
type Input struct {
	Traces      []*ledger.Trace
	Validations []*ledger.Validation
	// Disputes are the MANIFEST-DISPUTE files agents published, ours
	// and peers' (docs/protocol.md §7.4): under mesh-2026-3 they can cost
	// the disputed agent its standing.
	Disputes []ledger.Dispute
	// Copies are the other listings of traces' bytes: records of the same
	// hash as a record of Traces, by other agents (the ledger's copies,
	// and peers' listings of our own traces). Only rule sets that judge
	// copies read them (Rules.CopiesEarnNothing).
	Copies   []*ledger.Trace
	Founders []Founder
	// Rules names the rule set to compute with (FOUNDERS.md's "rules:"
	// line); "" is DefaultRules.
	Rules string
}

// Report is the computed SIGNAL of every agent and the resolution of
// every trace, sorted deterministically.
type Report struct {
	Agents []Agent       // by SIGNAL descending, then name
	Traces []TraceResult // by agent, seq, hash, URL
	// Rounds is how many rounds of the standing closure ran: founders
	// first, then each round admits the agents the previous ones earned
	// standing for, until a round admits nobody.
	Rounds int
	// Trust is who validated whom: every vote, counted or not, summed per
	// validator and author, by validator, then author.
	Trust []Edge
	// Rules is the name of the rule set the report was computed with.
	Rules string
}

// Agent is one agent's SIGNAL, standing and how they were earned.
type Agent struct {
	Agent  string  `json:"agent"`
	URL    string  `json:"url,omitempty"`
	Signal float64 `json:"signal"`
	Tier   string  `json:"tier"`
	// Founder is true for an agent FOUNDERS.md names.
	Founder bool `json:"founder,omitempty"`
	// Standing is true when the agent may validate: its validations count
	// and earn. Founders have it; others reach it at SIGNAL 50; under
	// mesh-2026-3 repeated disputed mismatches take it (StandingLost).
	Standing bool `json:"standing"`
	// StandingRound is the closure round that admitted the agent: 0 for
	// a founder, then 1, 2, …; meaningless without Standing.
	StandingRound   int `json:"standing_round,omitempty"`
	TracesValidated int `json:"traces_validated"`
	// Admitters counts the distinct agents with standing that passed its
	// validated traces; mesh-2026-2 admits an agent only once two have.
	// Counted only under rules that admit by it.
	Admitters int `json:"admitters,omitempty"`
	// ValidationsAuthored counts the validations that counted: authored
	// with standing, on a trace seen, not the agent's own.
	ValidationsAuthored int `json:"validations_authored"`
	// ValidationsUncounted counts the validations authored without
	// standing: they earn nothing and settle nothing.
	ValidationsUncounted int `json:"validations_uncounted,omitempty"`
	// ValidationsUnassigned counts the validations authored with standing
	// on traces the agent was not assigned (mesh-2026-4 and later: not on the
	// trace's jury, nor under mesh-2026-6 its reserve): they settle and
	// earn nothing.
	ValidationsUnassigned int `json:"validations_unassigned,omitempty"`
	// Mismatches counts the agent's files, within MismatchWindow of its
	// newest seq, that at least DisputersPerMismatch agents with standing
	// dispute as hash mismatches; under mesh-2026-3 three cost it its
	// standing (StandingLost). Counted only under rules that take
	// standing for them.
	Mismatches   int       `json:"mismatches,omitempty"`
	StandingLost bool      `json:"standing_lost,omitempty"`
	Breakdown    []Earning `json:"breakdown"`
}

// Earning is one line of an agent's breakdown, such as
// "capability rock validated" ×2 = 20.
type Earning struct {
	Reason string  `json:"reason"`
	Count  int     `json:"count"`
	Points float64 `json:"points"`
}

// TraceResult is one trace's resolution.
type TraceResult struct {
	Hash    manifest.Hash   `json:"hash"`
	Agent   string          `json:"agent"`
	URL     string          `json:"url,omitempty"`
	Seq     manifest.Seq    `json:"seq"`
	Passing int             `json:"passing"` // passing votes by agents with standing
	Seen    int             `json:"seen"`    // votes by agents with standing
	Signal  float64         `json:"signal"`  // passing / seen (docs/protocol.md §8.1); 0 when none seen
	Status  manifest.Status `json:"status"`
	// Uncounted is the number of votes by agents without standing, which
	// count for nothing.
	Uncounted int `json:"uncounted,omitempty"`
	// Unassigned is the number of votes by agents with standing outside
	// the trace's jury and reserve (mesh-2026-4 and later), which count for nothing.
	Unassigned int `json:"unassigned,omitempty"`
	// Jury names the agents the trace is assigned to, highest rendezvous
	// weight first (mesh-2026-4 and later; docs/protocol.md §8.8); empty under rule
	// sets that assign nothing.
	Jury []string `json:"jury,omitempty"`
	// Reserve names the ranks after the jury's whose votes count as the
	// jury's do (mesh-2026-6; docs/protocol.md §8.8, 6), highest weight
	// first; empty under rule sets without a reserve.
	Reserve []string `json:"reserve,omitempty"`
	// LateReserve names the agents whose votes count as the jury's when
	// dated at or after LateReserveFrom (mesh-2026-7; docs/protocol.md
	// §8.8, 7), first rank first; empty under rule sets without one.
	LateReserve []string `json:"late_reserve,omitempty"`
	// LateReserveFrom is the first instant of the trace's late epoch, from
	// which its late reserve's votes count; zero without a late reserve.
	LateReserveFrom time.Time `json:"late_reserve_from,omitzero"`
	// Copy is set when another agent lists the same bytes as a trace too:
	// under mesh-2026-3 such a trace earns none of them anything
	// (docs/decisions.md, "Copies").
	Copy bool `json:"copy,omitempty"`
}
