package heartbeat

import (
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/signal"
)

// signalReport computes SIGNAL from the node's snapshot, with what this run
// added to it: the same public files give every node the same report,
// whatever its mesh.yaml says. It is computed again only when a file was
// written through the snapshot or the ledger changed since the last
// time (docs/decisions.md, "SIGNAL once a heartbeat").
func (n *job) signalReport() (signal.Report, error) { return n.reportOf(nil) }

// reportOf is signalReport with our rows as they will stand once plan is
// written (signalInputs.planned), or as the snapshot holds them (plan
// nil).
func (n *job) reportOf(plan *publish.Result) (signal.Report, error) {
	at := n.signalAtPlan(plan)
	if n.signal != nil && n.signal.at == at {
		return n.signal.report, n.signal.err
	}
	if r, ok := n.extendedReport(plan); ok {
		n.signal = &computedSignal{at: at, report: r}
		// As after a computation: the goal the collector sets here, from
		// what the heartbeat goes on holding, is the one the rest of it
		// runs under (without it the peak of a three-year heartbeat that
		// publishes our trace rose by 190 MB).
		collectAt(collectComputed)
		return r, nil
	}
	if computingSignal != nil {
		computingSignal()
	}
	n.signal = nil // let go of the report this one replaces, as signalInput does
	c := &computedSignal{at: at}
	in, err := n.inputOf(plan)
	if err != nil {
		c.err = fmt.Errorf("compute SIGNAL: %w", err)
	} else {
		c.report = n.assignmentPools().ComputeKeeping(in, n.keep())
		collectAt(collectComputed)
	}
	n.signal = c
	return c.report, c.err
}

// extendedReport is the report over plan's rows made from the one over
// the snapshot's, when the heartbeat has it and plan only adds traces of
// ours that provably change nothing else (signal.Extend;
// docs/decisions.md, "Our new rows' statuses"); ok is false otherwise.
func (n *job) extendedReport(plan *publish.Result) (r signal.Report, ok bool) {
	now := n.signalAt()
	if plan == nil || extendingNever || n.signal == nil || n.signal.at != now || n.signal.err != nil ||
		n.input == nil || n.input.at != now || n.input.err != nil {
		return signal.Report{}, false
	}
	added, ok := signal.AddedTraces(n.snap, n.snap.Rows(), n.snap.RowsWith(plan.Manifest, plan.Archived), n.cfg.Agent, n.cfg.URL)
	if !ok {
		return signal.Report{}, false
	}
	return signal.Extend(n.input.in, n.signal.report, added, n.keep())
}

// keep is the results a heartbeat's SIGNAL report keeps: those it reads
// (readsResult), or every one in tests that ask (keepingAllResults).
func (n *job) keep() func(*ledger.Trace) bool {
	if keepingAllResults {
		return nil
	}
	return n.readsResult
}

// readsResult reports whether the heartbeat reads SIGNAL's result for the
// listing t, the only results its report keeps
// (signal.Pools.ComputeKeeping): one of ours (signal.Own,
// signal.ProgressOf, by the same URL prefix) or one whose trace is still
// in its ReserveWindow (reserveDuty, which reads the ledger's record of
// the hash). The others, most of years of history, it never reads.
func (n *job) readsResult(t *ledger.Trace) bool {
	if n.cfg.URL != "" && strings.HasPrefix(t.URL, n.cfg.URL) {
		return true
	}
	if n.inReserveWindow(t) {
		return true
	}
	return n.ledger != nil && n.inReserveWindow(n.ledger.Traces[t.Hash])
}

// signalInput is SIGNAL's input as the node now stands
// (signal.FromSnapshot), which the assignments, the reserve's duty and
// SIGNAL itself read: gathered again only when the node changed since the
// last time, as for signalReport. It reads every validation file of ours,
// so a heartbeat gathers it once for each state it computes from.
func (n *job) signalInput() (signal.Input, error) { return n.inputOf(nil) }

// inputOf is signalInput with our rows as they will stand once plan is
// written, or as the snapshot holds them (plan nil).
func (n *job) inputOf(plan *publish.Result) (signal.Input, error) {
	at := n.signalAtPlan(plan)
	if n.input != nil && n.input.at == at {
		return n.input.in, n.input.err
	}
	if gatheringSignal != nil {
		gatheringSignal()
	}
	// The input it replaces is let go first: with years of history each
	// holds a pointer to every trace and validation, and our own records.
	n.input = nil
	rows := n.snap.Rows()
	if plan != nil {
		rows = n.snap.RowsWith(plan.Manifest, plan.Archived)
	}
	in, err := signal.FromRows(n.snap, rows, n.cfg.Agent, n.cfg.URL)
	n.input = &gatheredInput{at: at, in: in, err: err}
	collectAt(collectGathered)
	return in, err
}

// signalAt is the state of the node now, as signalInputs says it.
func (n *job) signalAt() signalInputs { return n.signalAtPlan(nil) }

// signalAtPlan is signalAt with our rows as plan leaves them.
func (n *job) signalAtPlan(plan *publish.Result) signalInputs {
	at := signalInputs{ledger: n.ledger, writes: n.snap.Writes(), edits: n.ledger.Edits()}
	if plan != nil {
		at.planned = plan.Manifest
	}
	return at
}

// relabel says that the SIGNAL input and report computed at from, if
// they are the last, are those of to: the same rows, but for statuses,
// which are no input to SIGNAL.
func (n *job) relabel(from, to signalInputs) {
	if n.input != nil && n.input.at == from {
		n.input.at = to
	}
	if n.signal != nil && n.signal.at == from {
		n.signal.at = to
	}
}

// signalInputs says which state of the node a SIGNAL report was computed
// from: the ledger (another once the history is loaded), the snapshot's
// and the ledger's counts of changes, and the MANIFEST.md planned whose
// rows it took for ours (nil: the snapshot's).
type signalInputs struct {
	ledger        *ledger.Ledger
	writes, edits int
	planned       *manifest.Manifest
}

// computedSignal is the last SIGNAL report a heartbeat computed.
type computedSignal struct {
	at     signalInputs
	report signal.Report
	err    error
}

// gatheredInput is the last SIGNAL input a heartbeat gathered.
type gatheredInput struct {
	at  signalInputs
	in  signal.Input
	err error
}

// computingSignal and gatheringSignal, when set (tests only), are told
// each time a heartbeat computes SIGNAL and gathers its input.
var computingSignal, gatheringSignal func()

// keepingAllResults, when set (tests only), makes a heartbeat's SIGNAL
// report keep every trace's result, as it did before it kept only those
// it reads (readsResult): what it writes must not change.
var keepingAllResults bool

// extendingNever, when set (tests only), makes a heartbeat compute SIGNAL
// over its planned rows rather than extend the report over the
// snapshot's (extendedReport): what it writes must not change.
var extendingNever bool

// ownStatuses resolves the status of each of our own traces from the
// validations the node has seen (SIGNAL's resolution rule), with our rows
// as plan leaves them (nil: as the snapshot holds them). Under a rule
// set this node does not implement it resolves none: every trace stays
// pending rather than carry a status the mesh's rules may not give it.
func (n *job) ownStatuses(plan *publish.Result) (map[manifest.Hash]manifest.Status, error) {
	r, err := n.reportOf(plan)
	if unknownRules(err) != nil {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return signal.Own(r, n.cfg.URL), nil
}

// standing says whether the node may validate: whether its validations
// count, by the rule every node applies to the same public files
// (docs/decisions.md, Standing). The summary says where the node stands
// and, without standing, what to do next.
func (n *job) standing() (bool, error) {
	if n.quiet != nil {
		n.sum.Standing, n.sum.StandingNext = n.quiet.Standing, n.quiet.StandingNext
		return n.quiet.HasStanding, nil
	}
	r, err := n.signalReport()
	if ue := unknownRules(err); ue != nil {
		n.sum.Standing, n.sum.StandingNext = "no standing: "+ue.Error(), "upgrade meshnode to a version that implements the mesh's rule set"
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p := signal.ProgressOf(r, n.cfg.URL)
	n.sum.Standing, n.sum.StandingNext = p.Reason(), p.Next()
	return p.HasStanding(), nil
}
