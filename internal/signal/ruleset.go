package signal

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Rule-set names. A mesh names the rules its nodes compute SIGNAL, standing
// and statuses with in its FOUNDERS.md (a "rules:" line), so that nodes
// that upgrade at different times tell each other apart instead of
// silently disagreeing (docs/decisions.md, Rule sets).
const (
	// RulesMesh2026v1 is the rules of every mesh before rule sets were
	// named: standing at SIGNAL 50 from any votes with standing, 1 per
	// counted validation authored.
	RulesMesh2026v1 = "mesh-2026-1"
	// RulesMesh2026v2 is the rules that resist bought standing and bulk
	// scoring (docs/decisions.md, Rule sets): a trace earns its label's
	// value only when two agents with standing passed it, standing needs
	// passes from two of them, and a validation earns only when it agrees
	// with what the others settled, at most 10 a day.
	RulesMesh2026v2 = "mesh-2026-2"
	// RulesMesh2026v3 is mesh-2026-2 and two rules more: against mirrors
	// (docs/decisions.md, Copies), bytes listed by two or more agents earn
	// none of them anything while every vote on them still counts; and
	// standing lost to repeated hash mismatches that two agents with
	// standing dispute (docs/protocol.md §7.4).
	RulesMesh2026v3 = "mesh-2026-3"
	// RulesMesh2026v4 is mesh-2026-3 and validation by assignment
	// (docs/decisions.md, Assignment): each trace is judged by a jury of
	// at most JurySize agents with standing, chosen by rendezvous hashing
	// over those with standing when the trace's UTC day began; a vote
	// outside the jury settles and earns nothing.
	RulesMesh2026v4 = "mesh-2026-4"
	// RulesMesh2026v5 is mesh-2026-4 with juries that pass over the jurors
	// who are away (docs/decisions.md, Assignment: "Jurors away"): a
	// validator with standing that left an assignment of two days ago or
	// more unanswered, with no validation since, takes a seat only when
	// the others present leave one empty.
	RulesMesh2026v5 = "mesh-2026-5"
	// RulesMesh2026v6 is mesh-2026-5 with a reserve (docs/decisions.md,
	// Assignment: "The reserve"): the ReserveSize ranks after a trace's
	// jury in the same present-first order count as assigned too, so a
	// jury short of votes while its jurors are not yet known away is
	// filled by validators present, whenever they step in.
	RulesMesh2026v6 = "mesh-2026-6"
	// RulesMesh2026v7 is mesh-2026-6 with a late reserve (docs/decisions.md,
	// Assignment: "The late reserve"): LateReserveSize agents more of the
	// trace's day's pool still with standing AwayAfterDays later, ranked by
	// that day's away marks, when a juror that left on its day is away,
	// whose votes dated on or after
	// that day began count as the jury's; so a trace whose jury and
	// reserve both left is still judged by validators present.
	RulesMesh2026v7 = "mesh-2026-7"
)

// DefaultRules is the rule set of a FOUNDERS.md without a "rules:" line:
// every such file was written before rule sets had names, under these.
const DefaultRules = RulesMesh2026v1

// NewMeshRules is the rule set `meshnode init --founder` declares for a new
// mesh.
const NewMeshRules = RulesMesh2026v3

// Rules is one named rule set: what differs between the rule sets this
// node implements. The zero value of each rule is mesh-2026-1's.
type Rules struct {
	Name string
	// Summary says in a sentence for people how SIGNAL is earned.
	Summary string
	// CorroborateAt is how many agents with standing must pass a
	// validated trace for it to earn its label's table value; one passed
	// by fewer earns at most UncorroboratedPoints. 0: the label alone.
	CorroborateAt        int
	UncorroboratedPoints float64
	// AdmitAt is how many distinct agents with standing must have passed
	// an agent's validated traces, besides its SIGNAL reaching 50, for it
	// to be admitted to standing. 0: SIGNAL alone.
	AdmitAt int
	// AgreeingOnly: a validation earns only when it agrees with the
	// outcome the other validators with standing settled.
	AgreeingOnly bool
	// MaxEarningPerDay bounds the validations that earn one validator
	// SIGNAL per UTC day. 0: no bound.
	MaxEarningPerDay int
	// LoseAtMismatches is how many of an agent's files, each disputed as
	// a hash mismatch by DisputersPerMismatch agents with standing within
	// MismatchWindow of its newest seq, cost it standing (mismatch.go).
	// 0: disputes cost nothing.
	LoseAtMismatches int
	// CopiesEarnNothing judges every listing of a trace's bytes (Input.Copies):
	// a trace or validation file listed by two or more agents earns none
	// of them anything, and every record of a trace shares the status its
	// hash's votes give (docs/decisions.md, Copies). false: one record per
	// hash, the first the node read.
	CopiesEarnNothing bool
	// JurySize is how many agents with standing a trace is assigned to
	// (assign.go): only their votes settle it and earn. 0: every agent
	// with standing judges every trace.
	JurySize int
	// AwayAfter is, under rules that assign, how many days after a
	// trace's epoch began a juror that has published no validation since
	// counts as away (assign.go, markAway): from epoch t + AwayAfter on,
	// it is drawn only to seats the jurors present leave empty. 0: no
	// juror is ever away, and juries are drawn as if all were present.
	AwayAfter int
	// Reserve is, under rules that assign, how many ranks after the
	// jury's, in the same order, count as assigned too (assign.go): their
	// votes settle and earn as the jury's do, and are not assignments an
	// absence is judged by. 0: none.
	Reserve int
	// LateReserve is, under rules with AwayAfter, how many agents of the
	// present-first order over the trace's epoch's pool still in the pool
	// of the epoch AwayAfter days on, by that epoch's away marks, its jury
	// and reserve excepted, count as assigned for
	// votes dated on or after that epoch began (assign.go, lateOf). 0:
	// none.
	LateReserve int
}

// ruleSets is the registry of the rule sets this node implements, by name.
var ruleSets = map[string]Rules{
	RulesMesh2026v1: {Name: RulesMesh2026v1,
		Summary: "An agent's reputation, earned by its traces that agents with standing validated (by the type and category the author gave them) and by each validation it gave with standing."},
	RulesMesh2026v2: {Name: RulesMesh2026v2,
		Summary: "An agent's reputation, earned by its traces that agents with standing validated (their full weight once two of them passed it) and by validations that agreed with theirs, at most 10 a day.",
		// Two, because one validator's automatic passes (a founder's
		// heartbeat) must not buy anyone standing (issue 20, item 1).
		CorroborateAt: 2, UncorroboratedPoints: 1, AdmitAt: 2,
		// Ten a day: an honest validator earns it in a day of polling; a
		// node that scores a whole mesh in one heartbeat cannot buy Trusted.
		AgreeingOnly: true, MaxEarningPerDay: 10},
	RulesMesh2026v3: {Name: RulesMesh2026v3,
		Summary: "An agent's reputation, earned by its traces that agents with standing validated (their full weight once two of them passed it; nothing for bytes another agent lists too) and by validations that agreed with theirs, at most 10 a day; " +
			"an agent whose files two agents with standing dispute as hash mismatches, three files among its latest 50 seqs, loses its standing.",
		CorroborateAt: 2, UncorroboratedPoints: 1, AdmitAt: 2,
		AgreeingOnly: true, MaxEarningPerDay: 10,
		// Until signed logs say who published first (issue 23), a mirror
		// must not be able to take an author's credit, nor erase its votes.
		CopiesEarnNothing: true,
		// Three files, not one: a single mismatch is often a host's
		// hiccup; three within 50 seqs is a host that rewrites files.
		LoseAtMismatches: 3},
	RulesMesh2026v4: {Name: RulesMesh2026v4,
		Summary: "An agent's reputation, earned by its traces that the agents with standing assigned to judge them validated (their full weight once two of them passed it; nothing for bytes another agent lists too) and by assigned validations that agreed with theirs, at most 10 a day; " +
			"an agent whose files two agents with standing dispute as hash mismatches, three files among its latest 50 seqs, loses its standing.",
		CorroborateAt: 2, UncorroboratedPoints: 1, AdmitAt: 2,
		AgreeingOnly: true, MaxEarningPerDay: 10,
		CopiesEarnNothing: true, LoseAtMismatches: 3,
		JurySize: JurySize},
	RulesMesh2026v5: {Name: RulesMesh2026v5,
		Summary: "An agent's reputation, earned by its traces that the agents with standing assigned to judge them validated (their full weight once two of them passed it; nothing for bytes another agent lists too) and by assigned validations that agreed with theirs, at most 10 a day; " +
			"juries pass over validators that left an assignment unanswered; an agent whose files two agents with standing dispute as hash mismatches, three files among its latest 50 seqs, loses its standing.",
		CorroborateAt: 2, UncorroboratedPoints: 1, AdmitAt: 2,
		AgreeingOnly: true, MaxEarningPerDay: 10,
		CopiesEarnNothing: true, LoseAtMismatches: 3,
		JurySize: JurySize, AwayAfter: AwayAfterDays},
	RulesMesh2026v6: {Name: RulesMesh2026v6,
		Summary: "An agent's reputation, earned by its traces that the agents with standing assigned to judge them, or held in reserve for them, validated (their full weight once two of them passed it; nothing for bytes another agent lists too) and by assigned validations that agreed with theirs, at most 10 a day; " +
			"juries pass over validators that left an assignment unanswered; an agent whose files two agents with standing dispute as hash mismatches, three files among its latest 50 seqs, loses its standing.",
		CorroborateAt: 2, UncorroboratedPoints: 1, AdmitAt: 2,
		AgreeingOnly: true, MaxEarningPerDay: 10,
		CopiesEarnNothing: true, LoseAtMismatches: 3,
		JurySize: JurySize, AwayAfter: AwayAfterDays, Reserve: ReserveSize},
	RulesMesh2026v7: {Name: RulesMesh2026v7,
		Summary: "An agent's reputation, earned by its traces that the agents with standing assigned to judge them, held in reserve for them, or drawn two days later from those present, validated (their full weight once two of them passed it; nothing for bytes another agent lists too) and by assigned validations that agreed with theirs, at most 10 a day; " +
			"juries pass over validators that left an assignment unanswered; an agent whose files two agents with standing dispute as hash mismatches, three files among its latest 50 seqs, loses its standing.",
		CorroborateAt: 2, UncorroboratedPoints: 1, AdmitAt: 2,
		AgreeingOnly: true, MaxEarningPerDay: 10,
		CopiesEarnNothing: true, LoseAtMismatches: 3,
		JurySize: JurySize, AwayAfter: AwayAfterDays, Reserve: ReserveSize, LateReserve: LateReserveSize},
}

// tracePoints is what a validated trace labelled to earn points earns its
// author, corroborated or not.
func (r Rules) tracePoints(points float64, corroborated bool) float64 {
	if corroborated || r.CorroborateAt == 0 {
		return points
	}
	return min(points, r.UncorroboratedPoints)
}

// admits reports whether an agent with SIGNAL signal whose validated
// traces admitters distinct agents with standing passed is admitted to
// standing.
func (r Rules) admits(signal float64, admitters int) bool {
	return signal >= EstablishedAt && admitters >= r.AdmitAt
}

// RulesNamed returns the rule set called name; ok is false when this node
// does not implement it.
func RulesNamed(name string) (Rules, bool) {
	r, ok := ruleSets[name]
	return r, ok
}

// KnownRules lists the names of the rule sets this node implements, sorted.
func KnownRules() []string {
	out := make([]string, 0, len(ruleSets))
	for n := range ruleSets {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// UnknownRulesError is a FOUNDERS.md naming a rule set this node does not
// implement: it cannot compute that mesh's statuses or SIGNAL, and must
// not publish statuses computed under other rules.
type UnknownRulesError struct {
	Name string
}

func (e *UnknownRulesError) Error() string {
	return fmt.Sprintf("%s names rule set %q, which this meshnode does not implement (it knows %s): upgrade meshnode",
		FoundersFile, e.Name, strings.Join(KnownRules(), ", "))
}

// rulesKey is the key of the rule-set line of FOUNDERS.md.
const rulesKey = "rules:"

// validRulesName is what a rule-set name may be: a short lowercase token,
// so that it fits on a line of any file that carries it.
var validRulesName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{0,63}$`)

// RulesComparison is how a peer's declared rule set relates to ours.
type RulesComparison string

// Comparisons of a peer's rule set with ours.
const (
	RulesUndeclared RulesComparison = ""          // the peer names no rule set
	RulesSame       RulesComparison = "same"      // the peer computes with our rules
	RulesDiffer     RulesComparison = "different" // another rule set this node knows
	RulesUnknown    RulesComparison = "unknown"   // a rule set this node does not implement
)

// CompareRules says how a peer's declared rule set (theirs, "" when it
// declares none) relates to ours.
func CompareRules(ours, theirs string) RulesComparison {
	switch _, known := RulesNamed(theirs); {
	case theirs == "":
		return RulesUndeclared
	case theirs == ours:
		return RulesSame
	case !known:
		return RulesUnknown
	default:
		return RulesDiffer
	}
}

// RulesNote is one line saying how a peer's rule set differs from ours;
// "" when it does not (same, or undeclared).
func RulesNote(peer, ours, theirs string) string {
	switch CompareRules(ours, theirs) {
	case RulesDiffer:
		return fmt.Sprintf("peer %s computes with rule set %s, this node with %s: its statuses and SIGNAL differ from ours", peer, theirs, ours)
	case RulesUnknown:
		return fmt.Sprintf("peer %s computes with rule set %s, which this meshnode does not implement (ours: %s): upgrade, or agree on one rule set", peer, theirs, ours)
	}
	return ""
}
