// Command assignsim simulates, in process, a mesh whose agents publish
// traces for some days while its validators with standing score them, under
// two rule sets side by side: mesh-2026-3 (every validator scores every
// trace) and mesh-2026-4 (each scores the traces whose jury names it,
// chosen by signal.Assignments, the computation the heartbeat uses). Each
// day's standing comes from signal.Compute over the files so far, with the
// pools of past epochs kept from day to day in their file (signal.Pools,
// MarshalPools, ReadPools), as a node keeps them. It prints, per rule set
// and day, the validations each validator wrote (min / median / max), the
// counted votes per trace of the day (min / median), the traces left with
// fewer than three, and the time Compute took over the final files,
// alternating the rule sets, -rounds times each at the end: from nothing,
// and under mesh-2026-4 also with the kept pools read from their file
// (what a node's heartbeat costs).
//
//	go run ./bench/assignsim -agents 10000 -publish 0.1 -days 3 -validators 20
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

type options struct {
	agents, days, validators, rounds int
	publish, passRate                float64
}

func main() {
	var o options
	flag.IntVar(&o.agents, "agents", 10000, "agents in the mesh")
	flag.Float64Var(&o.publish, "publish", 0.1, "share of agents publishing a trace each day")
	flag.IntVar(&o.days, "days", 3, "simulated days")
	flag.IntVar(&o.validators, "validators", 20, "agents with standing (the founders)")
	flag.IntVar(&o.rounds, "rounds", 3, "timed Compute runs per rule set, alternating")
	flag.Float64Var(&o.passRate, "pass", 0.8, "share of validations that pass")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "assignsim:", err)
		os.Exit(1)
	}
}

func name(i int) string { return fmt.Sprintf("a%05d", i) }
func url(i int) string  { return fmt.Sprintf("https://%s.example/", name(i)) }

// sim is one rule set's mesh as it grows, and the pool cache file its
// node keeps.
type sim struct {
	rules string
	in    signal.Input
	pools []byte
}

// kept is the sim's pool cache as read from its file; empty on the first
// day.
func (s *sim) kept() (*signal.Pools, error) {
	if s.pools == nil {
		return signal.NewPools(), nil
	}
	return signal.ReadPools(s.pools)
}

func run(o options) error {
	if o.validators > o.agents {
		return fmt.Errorf("-validators %d exceeds -agents %d", o.validators, o.agents)
	}
	fmt.Printf("%d agents, %.0f %% publishing a day, %d days, %d validators with standing (founders), votes pass %.0f %%\n",
		o.agents, 100*o.publish, o.days, o.validators, 100*o.passRate)
	sims := []*sim{{rules: signal.RulesMesh2026v3}, {rules: signal.RulesMesh2026v4}}
	for _, s := range sims {
		s.in.Rules = s.rules
		for i := 0; i < o.validators; i++ {
			s.in.Founders = append(s.in.Founders, signal.Founder{Name: name(i), URL: url(i)})
		}
	}
	for day := 0; day < o.days; day++ {
		traces := publish(o, day)
		for _, s := range sims {
			if err := s.day(o, day, traces); err != nil {
				return err
			}
		}
	}
	return timeCompute(o, sims)
}

// publish is the day's traces: each agent publishes one with probability
// o.publish, the same agents under both rule sets.
func publish(o options, day int) []ledger.Trace {
	rng := rand.New(rand.NewPCG(uint64(day), 25))
	at := time.Date(2027, 1, 1+day, 12, 0, 0, 0, time.UTC)
	var out []ledger.Trace
	for i := 0; i < o.agents; i++ {
		if rng.Float64() >= o.publish {
			continue
		}
		h := manifest.HashBytes([]byte(fmt.Sprintf("%s day %d", name(i), day)))
		out = append(out, ledger.Trace{Agent: name(i), AgentURL: url(i), Seq: manifest.Seq(day + 1), Hash: h,
			File: fmt.Sprintf("traces/%03d.md", day+1), URL: fmt.Sprintf("%straces/%03d.md", url(i), day+1),
			Type: "knowledge", Category: "pebble", Submitted: at, Verified: true})
	}
	return out
}

// day adds the day's traces, has every agent with standing score what
// the rule set gives it, and prints the day's figures.
func (s *sim) day(o options, day int, traces []ledger.Trace) error {
	pools, err := s.kept()
	if err != nil {
		return err
	}
	standing := s.standing(pools)
	for i := range traces {
		s.in.Traces = append(s.in.Traces, &traces[i])
	}
	as, assigns := pools.Assignments(s.in)
	rng := rand.New(rand.NewPCG(uint64(day), 4))
	at := traces[0].Submitted.Add(6 * time.Hour)
	written := map[string]int{}
	for _, v := range standing {
		for _, t := range traces {
			if t.AgentURL == v.URL || (assigns && !as.AssignedTo(&t, v.URL)) {
				continue
			}
			result := "fail"
			if rng.Float64() < o.passRate {
				result = "pass"
			}
			s.in.Validations = append(s.in.Validations, &ledger.Validation{Validator: v.Agent, ValidatorURL: v.URL,
				TraceURL: t.URL, TraceHash: t.Hash, Result: result, ValidatedAt: at})
			written[v.URL]++
		}
	}
	r := pools.Compute(s.in)
	s.pools = signal.MarshalPools(pools)
	per := make([]int, 0, len(standing))
	for _, v := range standing {
		per = append(per, written[v.URL])
	}
	seen, short := votesOn(r, traces)
	fmt.Printf("%s day %d: %d traces; validations per validator %s (%d in all); counted votes per trace min %d median %d; traces with fewer than 3: %d\n",
		s.rules, day+1, len(traces), spread(per), sum(per), seen[0], seen[len(seen)/2], short)
	return nil
}

// standing is the agents with standing in the mesh so far.
func (s *sim) standing(pools *signal.Pools) []signal.Agent {
	var out []signal.Agent
	for _, a := range pools.Compute(s.in).Agents {
		if a.Standing {
			out = append(out, a)
		}
	}
	if len(out) == 0 { // no traces yet: the founders
		for _, f := range s.in.Founders {
			out = append(out, signal.Agent{Agent: f.Name, URL: f.URL, Standing: true})
		}
	}
	return out
}

// votesOn returns the counted votes of each of traces in r, sorted, and
// how many have fewer than three.
func votesOn(r signal.Report, traces []ledger.Trace) ([]int, int) {
	want := map[manifest.Hash]bool{}
	for _, t := range traces {
		want[t.Hash] = true
	}
	var seen []int
	short := 0
	for _, t := range r.Traces {
		if want[t.Hash] {
			seen = append(seen, t.Seen)
			if t.Seen < 3 {
				short++
			}
		}
	}
	slices.Sort(seen)
	return seen, short
}

// timeCompute times Compute over each rule set's final files, from
// nothing and, where the node keeps pools, with them read from their
// file, alternating.
func timeCompute(o options, sims []*sim) error {
	type row struct {
		name    string
		s       *sim
		compute func() error
	}
	var rows []row
	for _, s := range sims {
		rows = append(rows, row{s.rules + " from nothing", s, func() error { signal.Compute(s.in); return nil }})
		if s.pools != nil {
			rows = append(rows, row{s.rules + " with the pools kept", s, func() error {
				p, err := signal.ReadPools(s.pools)
				if err != nil {
					return err
				}
				p.Compute(s.in)
				return nil
			}})
		}
	}
	times := make([][]time.Duration, len(rows))
	for r := 0; r < o.rounds; r++ {
		for i, row := range rows {
			start := time.Now()
			if err := row.compute(); err != nil {
				return err
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	for i, row := range rows {
		slices.Sort(times[i])
		t := times[i]
		fmt.Printf("%s: Compute over %d traces and %d validations: %v / %v / %v (min / median / max of %d, alternating)\n",
			row.name, len(row.s.in.Traces), len(row.s.in.Validations), t[0].Round(time.Millisecond), t[len(t)/2].Round(time.Millisecond), t[len(t)-1].Round(time.Millisecond), len(t))
	}
	return nil
}

func spread(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return fmt.Sprintf("%d / %d / %d", s[0], s[len(s)/2], s[len(s)-1])
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
