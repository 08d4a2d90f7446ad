package main

import (
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/signal"
)

func smallMesh(t *testing.T) (options, []*agent) {
	t.Helper()
	o := options{agents: 120, days: 1, publish: 0.5, validators: 12, seed: 3}
	agents, err := makeAgents(o)
	if err != nil {
		t.Fatal(err)
	}
	return o, agents
}

func TestAssignmentDrawsAJuryOfFiveForEveryMeasuredTrace(t *testing.T) {
	o, agents := smallMesh(t)
	as, err := assign(o, agents)
	if err != nil {
		t.Fatal(err)
	}
	all := as.coverage[0]
	for _, c := range []tally{all.v4, all.steady, all.today} {
		if all.away != 0 || c.traces == 0 || c.short != 0 || c.minimum != signal.JurySize {
			t.Errorf("with every validator active: %+v, want every trace judged by %d", c, signal.JurySize)
		}
	}
	most := as.coverage[len(as.coverage)-1]
	if most.v4.traces != all.v4.traces || most.v4.minimum >= signal.JurySize || most.v4.short == 0 {
		t.Errorf("with %.0f%% of the validators away: %+v, want some traces short of three", 100*most.away, most.v4)
	}
	var mine, measured int
	for _, a := range agents {
		for i, p := range a.publishes {
			if p.Before(start.Add(24 * time.Hour)) {
				continue
			}
			measured++
			if a.assigned[i] {
				mine++
				if a == agents[0] {
					t.Errorf("the node is assigned its own trace of %v", p)
				}
			}
		}
	}
	if measured != all.v4.traces || mine == 0 || mine >= measured/2 {
		t.Errorf("the node is assigned %d of %d measured traces (coverage counted %d), want about %d × %d ÷ %d",
			mine, measured, all.v4.traces, signal.JurySize, measured, o.validators)
	}
}

// The first day's pool is the founders alone, so its juries can be drawn
// here from the traces alone: the node's assignments must be those.
func TestAssignmentMarksTheTracesWhoseJuryNamesTheNode(t *testing.T) {
	o, agents := smallMesh(t)
	if _, err := assign(o, agents); err != nil {
		t.Fatal(err)
	}
	in := signal.Input{Rules: signal.RulesMesh2026v4}
	for i := range o.validators {
		in.Founders = append(in.Founders, signal.Founder{Name: agentName(i), URL: agents[i].url})
	}
	traces, refs := tracesOfDay(agents, 0)
	for i := range traces {
		in.Traces = append(in.Traces, &traces[i])
	}
	as, ok := signal.NewAssignments(in)
	if !ok {
		t.Fatal("mesh-2026-4 assigns nothing")
	}
	named := 0
	for i, tr := range traces {
		want := slices.Contains(as.Jury(&tr), agentName(0))
		if got := refs[i].a.assigned[refs[i].p]; got != want {
			t.Errorf("trace %s of %s: assigned to the node %v, its jury %v", tr.Hash, tr.Agent, got, as.Jury(&tr))
		}
		if want {
			named++
		}
	}
	if named == 0 {
		t.Error("no trace of the first day names the node: the test checks nothing")
	}
}

func TestValidateCountsTheTracesAPollRead(t *testing.T) {
	at := func(h int) time.Time { return start.Add(time.Duration(h) * time.Hour) }
	a := &agent{url: "https://a000001.example/mesh/", publishes: []time.Time{at(1), at(3), at(5), at(9)}, assigned: []bool{true, true, false, true}}
	n := &node{agents: []*agent{{url: "https://a000000.example/mesh/"}, a}}
	var c counts
	n.validate(a, at(2), at(5), &c)
	if c.validationsAll != 2 || c.validationsAssigned != 1 {
		t.Errorf("a poll at 5 h after one at 2 h counted %d validations, %d assigned; want the traces of 3 h and 5 h: 2, 1", c.validationsAll, c.validationsAssigned)
	}
}

// TestUnderMesh2026v5ASteadyAbsenceCostsNoCoverage: with two fifths of
// the validators away since the first day, mesh-2026-5's juries on the
// last day (past signal.AwayAfterDays) are drawn from those present and
// every trace gets five validations, while mesh-2026-4's leave some short
// of three; an absence that begins on the last day shows in no file, and
// costs mesh-2026-5 what it costs mesh-2026-4.
func TestUnderMesh2026v5ASteadyAbsenceCostsNoCoverage(t *testing.T) {
	o := options{agents: 120, days: signal.AwayAfterDays + 1, publish: 0.5, validators: 12, seed: 3}
	agents, err := makeAgents(o)
	if err != nil {
		t.Fatal(err)
	}
	as, err := assign(o, agents)
	if err != nil {
		t.Fatal(err)
	}
	most := as.coverage[len(as.coverage)-1]
	if most.steady.traces == 0 || most.steady.short != 0 || most.steady.minimum != signal.JurySize {
		t.Errorf("mesh-2026-5, %.0f%% away since day 0: %+v, want every trace judged by %d", 100*most.away, most.steady, signal.JurySize)
	}
	if most.v4.short == 0 || most.today != most.v4 {
		t.Errorf("%.0f%% away from the last day: mesh-2026-4 %+v, mesh-2026-5 %+v; want some short, and the same", 100*most.away, most.v4, most.today)
	}
}

// TestUnderMesh2026v6TheReserveCoversANewAbsence: an absence that begins
// on the last day leaves mesh-2026-5's traces short of three; under
// mesh-2026-6 the reserve present steps in, so fewer are short and the
// reserve casts votes, and with everyone present, or with an absence the
// files already show, it casts none and costs nothing.
func TestUnderMesh2026v6TheReserveCoversANewAbsence(t *testing.T) {
	o := options{agents: 120, days: signal.AwayAfterDays + 1, publish: 0.5, validators: 12, seed: 3}
	agents, err := makeAgents(o)
	if err != nil {
		t.Fatal(err)
	}
	as, err := assign(o, agents)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range as.coverage {
		if c.v6steady != c.steady {
			t.Errorf("%.0f%% away since day 0: mesh-2026-6 %+v, mesh-2026-5 %+v; want the reserve idle", 100*c.away, c.v6steady, c.steady)
		}
	}
	if all := as.coverage[0]; all.v6today != all.today || all.v6today.reserve != 0 {
		t.Errorf("everyone present: mesh-2026-6 %+v, mesh-2026-5 %+v; want the same, no reserve vote", all.v6today, all.today)
	}
	most := as.coverage[len(as.coverage)-1]
	if most.today.short == 0 || most.v6today.short >= most.today.short || most.v6today.reserve == 0 {
		t.Errorf("%.0f%% away from the last day: mesh-2026-6 %+v, mesh-2026-5 %+v; want fewer short, with the reserve's votes", 100*most.away, most.v6today, most.today)
	}
}

// TestUnderMesh2026v7TheLateReserveCoversWhatTheReserveCannot: with two
// fifths of the validators leaving on the last day, mesh-2026-6 leaves
// some traces short of three (their ten seats hold fewer than three
// present); under mesh-2026-7 the late reserve present votes two days
// on, and signal counts those votes: fewer traces are short, no late
// vote is cast before the late epoch, and with everyone present the late
// reserve casts nothing.
func TestUnderMesh2026v7TheLateReserveCoversWhatTheReserveCannot(t *testing.T) {
	o := options{agents: 800, days: signal.AwayAfterDays + 1, publish: 0.5, validators: 60, seed: 3}
	agents, err := makeAgents(o)
	if err != nil {
		t.Fatal(err)
	}
	as, err := assign(o, agents)
	if err != nil {
		t.Fatal(err)
	}
	if all := as.coverage[0]; all.v7today.late != 0 || all.v7today.short != 0 || all.v7today.votes != all.today.votes {
		t.Errorf("everyone present: mesh-2026-7 %+v, mesh-2026-5 %+v; want no late vote and the same count", all.v7today, all.today)
	}
	most := as.coverage[len(as.coverage)-1]
	if most.v6today.short == 0 || most.v7today.short >= most.v6today.short || most.v7today.late == 0 {
		t.Errorf("%.0f%% away from the last day: mesh-2026-7 %+v, mesh-2026-6 %+v; want fewer short, with the late reserve's votes", 100*most.away, most.v7today, most.v6today)
	}
	t.Logf("mesh-2026-6 %v; mesh-2026-7 %v", most.v6today, most.v7today)
	for _, h := range most.v7today.hours {
		if h < 24*float64(signal.AwayAfterDays) {
			t.Errorf("a late reserve vote cast %.1f h after its trace's day began, before its late epoch", h)
		}
	}
}
