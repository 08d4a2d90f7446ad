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

// The reference node's reserve policy under mesh-2026-6 (docs/decisions.md,
// Assignment: "The reserve"). When a reserve juror votes is node behaviour,
// not a rule: its vote counts whenever it is cast.
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
)

// reserveDuty is, under a rule set with a reserve, the traces the node is
// to step in for now (their reserve names it, the files it holds give them
// fewer than ReserveShort counted votes or a vote of another member of
// their reserve, it has not validated them, and they were submitted, or
// first seen when later, between ReserveWindow and ReserveDelay ago), and
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
	voters := map[manifest.Hash][]string{} // trace → the URLs of its validators
	for _, v := range in.Validations {
		voters[v.TraceHash] = append(voters[v.TraceHash], v.ValidatorURL)
	}
	for _, tr := range rep.Traces {
		t := n.ledger.Traces[tr.Hash]
		if t == nil || !n.wanted(t, tr, voters[tr.Hash], as) {
			continue
		}
		if at := reserveFrom(t).Add(ReserveDelay); !n.now.Before(at) {
			due = append(due, t)
		} else if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return due, next, nil
}

// wanted reports whether the node's reserve policy wants a vote of it on
// t, whose result is tr and validators' URLs voters, at some time from
// ReserveDelay after its epoch began: its reserve names the node, the
// node has not voted, and the trace is short of votes or another reserve
// member voted; and the ReserveWindow has not passed.
func (n *job) wanted(t *ledger.Trace, tr signal.TraceResult, voters []string, as signal.Assignments) bool {
	if slices.Contains(voters, n.cfg.URL) || !n.mayStepIn(t) ||
		!n.now.Before(reserveFrom(t).Add(ReserveWindow)) {
		return false
	}
	if tr.Seen >= ReserveShort && !slices.ContainsFunc(voters, func(u string) bool { return u != "" && as.InReserve(*t, u) }) {
		return false
	}
	return as.InReserve(*t, n.cfg.URL)
}

// hasReserve reports whether the mesh's rule set, as FOUNDERS.md names
// it, has a reserve: only then does the heartbeat look for reserve
// traces, and compute nothing more under the others.
func (n *job) hasReserve() bool {
	decl, err := signal.ParseFounders(n.snap.Founders)
	if err != nil {
		return false
	}
	r, ok := signal.RulesNamed(decl.Rules)
	return ok && r.Reserve > 0
}

// mayStepIn reports whether t is a peer's trace the node may score: not
// our own, its text not taken down. Whether its reserve holds the node is
// Assignments.InReserve's to say, by URL as for the jury: the mesh may
// know the node by another name than its configuration's.
func (n *job) mayStepIn(t *ledger.Trace) bool {
	return !n.own[t.Hash] && t.AgentURL != n.cfg.URL && !strings.EqualFold(t.Agent, n.cfg.Agent) && t.TakenDown == ""
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
		t = n.ledger.WholeTrace(t.Hash) // its title, which a summary leaves out
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
