package heartbeat

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/validation"
)

// The reference node's reserve policy under mesh-2026-6 and mesh-2026-7
// (docs/decisions.md, Assignment: "The reserve", "The late reserve"). When
// a reserve juror votes is node behaviour, not a rule: its vote counts
// whenever it is cast (a late reserve's, when dated in its late epoch or
// after).
const (
	// ReserveDelay is how long after its trace was submitted (or first
	// seen by this node, when later) a reserve juror waits before it steps
	// in: a whole day, in which a jury present (polling each other within
	// six hours, through relays within minutes) has voted, however late in
	// its UTC day the trace came. Counted from the epoch's start instead,
	// a trace submitted at 23:50 came due at midnight, before any juror
	// could have read it, and drew the whole reserve.
	ReserveDelay = 24 * time.Hour
	// ReserveShort is the count of counted votes below which the reserve
	// steps in: the three validations issue 25 asks of every trace. The
	// reserve also steps in, whatever the count, once another member of it
	// voted: a reserve that answers its own members leaves a clique in it
	// a majority of ten to win, not of the jury's present votes.
	ReserveShort = 3
	// ReserveWindow is how long after it was submitted (or first seen,
	// when later) a trace stays the reserve's duty: the queue's retention of settled items, so that a
	// trace the node tried and settled (skipped, failed) is still in the
	// queue, which never takes a hash twice, for as long as it could come
	// due again.
	ReserveWindow = queue.SettledRetention
	// ReserveRetry is how often a heartbeat tries again a reserve trace
	// due that the queue's bounds held back: room may need a person (a
	// manual scorer's queue) or a worker's lease to end, and a heartbeat
	// that loads the history to try costs about a minute after years, so
	// a full queue makes a quiet node load it once in this time, not
	// every heartbeat for the trace's window.
	ReserveRetry = 3 * time.Hour
	// LateReserveDelay is how long after the reserve comes due a member of
	// the late reserve (mesh-2026-7) steps in: the reserve has had a whole
	// day to answer, as the jury had before it. Its vote counts only when
	// dated in the trace's late epoch or after, which the reserve's due
	// time and this delay always reach (a trace's epoch began before it
	// was submitted); the policy takes the later of the two regardless.
	LateReserveDelay = 24 * time.Hour
)

// reserveDuty is, under a rule set with a reserve, the traces the node is
// to step in for now (their reserve or late reserve names it, the files it
// holds give them fewer than ReserveShort counted votes or a vote of
// another member of the same reserve, it has not validated them, they
// came due (dueAt) and were submitted, or first seen when later, less
// than ReserveWindow ago), and
// the earliest time another such trace comes due (zero: none). The counts
// are SIGNAL's own (signal.TraceResult.Seen), as this heartbeat computes
// it. An error says the duty could not be computed: nothing is due and
// nothing may wait for it.
//
// It is computed again only when the node changed since the last time
// (signalInputs): queuing and the derived record then share one
// computation; a heartbeat that published a validation computes it again,
// since our vote takes its trace off the duty.
func (n *job) reserveDuty() (due []*ledger.Trace, next time.Time, err error) {
	at := n.signalAt()
	if n.duty == nil || n.duty.at != at {
		if computingDuty != nil {
			computingDuty()
		}
		d := &computedDuty{at: at}
		d.due, d.next, d.err = n.computeDuty()
		n.duty = d
	}
	return n.duty.due, n.duty.next, n.duty.err
}

// computedDuty is the reserve's duty as a heartbeat last computed it.
type computedDuty struct {
	at   signalInputs
	due  []*ledger.Trace
	next time.Time
	err  error
}

// computingDuty, when set (tests only), is told each time a heartbeat
// computes the reserve's duty.
var computingDuty func()

// computeDuty computes what reserveDuty returns.
func (n *job) computeDuty() (due []*ledger.Trace, next time.Time, err error) {
	if !n.hasReserve() {
		return nil, time.Time{}, nil
	}
	in, err := n.signalInput()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reserve: %w", err)
	}
	rep, err := n.signalReport()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reserve: %w", err)
	}
	as, ok := n.assignmentPools().Assignments(in)
	if !ok {
		return nil, time.Time{}, nil
	}
	voters := map[manifest.Hash][]voter{} // trace → its validators
	for _, v := range in.Validations {
		voters[v.TraceHash] = append(voters[v.TraceHash], voter{v.ValidatorURL, v.ValidatedAt})
	}
	for _, tr := range rep.Traces {
		t := n.ledger.Traces[tr.Hash]
		if t == nil {
			continue
		}
		at, ok := n.dueAt(t, tr, voters[tr.Hash], as)
		if !ok {
			continue
		}
		if !n.now.Before(at) {
			due = append(due, t)
		} else if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return due, next, nil
}

// voter is one validation of a trace: its validator's URL and the time it
// states.
type voter struct {
	url string
	at  time.Time
}

// dueAt is when the node's reserve policy wants a vote of it on t, whose
// result is tr and validations voters; ok is false when it wants none:
// the node has voted, may not score t, or t's ReserveWindow has passed;
// or neither t's reserve nor its late reserve names the node; or the
// trace has ReserveShort counted votes or more and no other member of the
// node's reserve (of its late reserve: with a vote that counts, dated
// from its late epoch on) has voted. A reserve member's vote is due
// ReserveDelay after reserveFrom, a late reserve member's LateReserveDelay
// after that, and never before the trace's late epoch.
func (n *job) dueAt(t *ledger.Trace, tr signal.TraceResult, voters []voter, as signal.Assignments) (time.Time, bool) {
	from := reserveFrom(t)
	if slices.ContainsFunc(voters, func(v voter) bool { return v.url == n.cfg.URL }) || !n.mayStepIn(t) ||
		!n.inReserveWindow(t) {
		return time.Time{}, false
	}
	short := tr.Seen < ReserveShort
	switch {
	case as.InReserve(t, n.cfg.URL):
		if short || slices.ContainsFunc(voters, func(v voter) bool { return v.url != "" && as.InReserve(t, v.url) }) {
			return from.Add(ReserveDelay), true
		}
	case as.InLateReserve(t, n.cfg.URL):
		late := as.LateFrom(t)
		if short || slices.ContainsFunc(voters, func(v voter) bool {
			return v.url != "" && !v.at.Before(late) && as.InLateReserve(t, v.url)
		}) {
			return latest(late, from.Add(ReserveDelay+LateReserveDelay)), true
		}
	}
	return time.Time{}, false
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// hasReserve reports whether the mesh's rule set, as FOUNDERS.md names
// it, has a reserve or a late reserve: only then does the heartbeat look
// for reserve traces, and compute nothing more under the others.
func (n *job) hasReserve() bool {
	decl, err := signal.ParseFounders(n.snap.Founders)
	if err != nil {
		return false
	}
	r, ok := signal.RulesNamed(decl.Rules)
	return ok && (r.Reserve > 0 || r.LateReserve > 0)
}

// mayStepIn reports whether t is a peer's trace the node may score: not
// our own, its text not taken down. Whether its reserve holds the node is
// Assignments.InReserve's to say, by URL as for the jury: the mesh may
// know the node by another name than its configuration's.
func (n *job) mayStepIn(t *ledger.Trace) bool {
	return !n.own[t.Hash] && t.AgentURL != n.cfg.URL && !strings.EqualFold(t.Agent, n.cfg.Agent) && t.TakenDown == ""
}

// inReserveWindow reports whether t (nil: no trace) was submitted, or
// first seen when later, less than ReserveWindow ago: only then may it be
// the reserve's duty.
func (n *job) inReserveWindow(t *ledger.Trace) bool {
	return t != nil && n.now.Before(reserveFrom(t).Add(ReserveWindow))
}

// reserveFrom is when the reserve's delay and window for t start: its
// submitted time, or when this node first saw it if that is later (a
// trace read late, or dated back by its author).
func reserveFrom(t *ledger.Trace) time.Time {
	if t.FirstSeen.After(t.Submitted) {
		return t.FirstSeen
	}
	return t.Submitted
}

// reserveItems is the queue items of the reserve traces due now that the
// queue does not hold already (one it settled, a trace it could not
// fetch or score, stays there for ReserveWindow and is not tried again);
// the summary counts those the queue takes (Reserve).
func (n *job) reserveItems() ([]queue.Item, error) {
	due, _, err := n.reserveDuty()
	if err != nil {
		return nil, err
	}
	due, err = n.notQueued(due)
	if err != nil {
		return nil, err
	}
	out := make([]queue.Item, 0, len(due))
	for _, t := range due {
		// Its title, which a summary leaves out; none when only a lying
		// summary gave the trace (ledger.Repaired).
		if t = n.ledger.WholeTrace(t.Hash); t == nil {
			continue
		}
		out = append(out, queue.Item{
			ID: validation.ID(t.Hash), Hash: t.Hash, From: t.Agent, FromURL: t.AgentURL, TraceURL: t.URL,
			Type: t.Type, Title: t.Title, Seq: t.Seq, Submitted: t.Submitted, QueuedAt: n.now, UpdatedAt: n.now,
		})
	}
	return out, nil
}

// reserveDue is when a heartbeat must next read the history for the
// reserve (derived.ReserveDue): ReserveRetry from now when a reserve
// trace due now waits, the queue not holding it (its bounds held it
// back), or when the next comes due if that is earlier; zero: never.
func (n *job) reserveDue() (time.Time, error) {
	due, next, err := n.reserveDuty()
	if err != nil {
		return time.Time{}, err
	}
	waiting, err := n.notQueued(due)
	if err != nil {
		return time.Time{}, err
	}
	if retry := n.now.Add(ReserveRetry); len(waiting) > 0 && (next.IsZero() || retry.Before(next)) {
		next = retry
	}
	return next, nil
}

// notQueued keeps of traces those the queue holds no item of, whatever
// its status: none of its hash, nor of its ID (the queue refuses an item
// whose ID another holds, for as long as it holds that one: a trace
// whose hash shares its first 48 bits with one queued can never be, and
// must not be waited for).
func (n *job) notQueued(traces []*ledger.Trace) ([]*ledger.Trace, error) {
	if len(traces) == 0 {
		return nil, nil
	}
	held, err := n.queue.List()
	if err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	return slices.DeleteFunc(slices.Clone(traces), func(t *ledger.Trace) bool {
		id := validation.ID(t.Hash)
		return slices.ContainsFunc(held, func(it queue.Item) bool { return it.Hash == t.Hash || it.ID == id })
	}), nil
}
