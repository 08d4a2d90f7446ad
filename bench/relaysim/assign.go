package main

import (
	"fmt"
	"math"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

// Validation by assignment, on the same mesh: the first -validators
// agents are the founders, the agents with standing (nobody else earns
// it in the days simulated), and the node is the first of them. Each
// day's traces are added to a signal.Input under mesh-2026-4, their
// juries drawn by signal's own assignment (Pools.Assignments, the pool
// of the epoch each trace falls in computed by signal's standing
// closure over the files dated before it), and every juror writes its
// validation, which the next day's pool is computed over. Coverage
// counts, with a share of the validators away, the validations the
// jurors still active write: juries are drawn from the validators with
// standing, whether active or not. Under mesh-2026-3 every validator
// validates every trace that is not its own.

// awayShares are the shares of validators with standing that are away
// (validate nothing) for which coverage is counted.
var awayShares = []float64{0, 0.2, 0.4}

// coverage is, for one share of validators away, how many of the
// measured days' traces got fewer than three validations while at least
// three validators with standing were active.
type coverage struct {
	away    float64
	active  int
	traces  int
	short   int
	minimum int
}

// assignment is what the assignment part of a run found.
type assignment struct {
	validators int
	coverage   []coverage
	// seconds is the CPU time signal took over each day's assignments,
	// from its pool to the last jury; computed is the pools it computed.
	seconds  []float64
	computed int
	// assigned is how many of the measured days' traces name the node,
	// of others' traces in all.
	assigned, others int
}

// assign draws every trace's jury and marks, in each agent, the
// publishes the node is assigned (agent.assigned).
func assign(o options, agents []*agent) (assignment, error) {
	out := assignment{validators: o.validators}
	if o.validators < 1 || o.validators > len(agents) {
		return out, fmt.Errorf("-validators %d: want 1 to -agents (%d)", o.validators, len(agents))
	}
	in := signal.Input{Rules: signal.RulesMesh2026v4}
	for i := range o.validators {
		in.Founders = append(in.Founders, signal.Founder{Name: agentName(i), URL: agents[i].url})
	}
	pools := signal.NewPools()
	for _, c := range awayShares {
		out.coverage = append(out.coverage, coverage{away: c, active: o.validators - int(math.Round(c*float64(o.validators))), minimum: math.MaxInt})
	}
	for day := 0; day <= o.days; day++ {
		traces, owners := tracesOfDay(agents, day)
		in.Traces = append(in.Traces, traces...)
		cpu0 := cpuTime()
		as, ok := pools.Assignments(in)
		if !ok {
			return out, fmt.Errorf("rule set %s assigns nothing", in.Rules)
		}
		juries := make([][]string, len(traces))
		for i, t := range traces {
			juries[i] = as.Jury(t)
			owners[i].a.assigned[owners[i].p] = as.AssignedTo(t, agents[0].url)
		}
		out.seconds = append(out.seconds, (cpuTime() - cpu0).Seconds())
		for i, t := range traces {
			in.Validations = append(in.Validations, validations(t, juries[i], agents)...)
			if day > 0 {
				out.count(juries[i], t.Agent)
				if owners[i].a != agents[0] {
					out.others++
					if owners[i].a.assigned[owners[i].p] {
						out.assigned++
					}
				}
			}
		}
	}
	out.computed = pools.Computed()
	return out, nil
}

// publishRef names one publish: the agent and its index in publishes.
type publishRef struct {
	a *agent
	p int
}

// tracesOfDay is the traces published on day (after start), and who
// published each.
func tracesOfDay(agents []*agent, day int) ([]ledger.Trace, []publishRef) {
	from := start.Add(time.Duration(day) * 24 * time.Hour)
	var ts []ledger.Trace
	var refs []publishRef
	for i, a := range agents {
		if a.assigned == nil {
			a.assigned = make([]bool, len(a.publishes))
		}
		for p, at := range a.publishes {
			if at.Before(from) || !at.Before(from.Add(24*time.Hour)) {
				continue
			}
			seq := p + 2 // each log starts with one entry before the run
			ts = append(ts, ledger.Trace{Agent: agentName(i), AgentURL: a.url, Seq: manifest.Seq(seq),
				Hash: manifest.HashBytes(fmt.Appendf(nil, "%s %d", a.url, seq)), File: fmt.Sprintf("traces/%d.md", seq),
				URL: fmt.Sprintf("%straces/%d.md", a.url, seq), Type: "knowledge", Category: "pebble", Submitted: at, Verified: true})
			refs = append(refs, publishRef{a, p})
		}
	}
	return ts, refs
}

// validations are the jury's validations of t, each an hour after it,
// passing.
func validations(t ledger.Trace, jury []string, agents []*agent) []ledger.Validation {
	out := make([]ledger.Validation, 0, len(jury))
	for _, name := range jury {
		var i int
		fmt.Sscanf(name, "a%d", &i)
		out = append(out, ledger.Validation{Validator: name, ValidatorURL: agents[i].url, TraceURL: t.URL, TraceHash: t.Hash,
			Result: "pass", ValidatedAt: t.Submitted.Add(time.Hour)})
	}
	return out
}

// count adds one measured trace's jury to each share's coverage: the
// validators away are the last of the founders, so with a share away
// the first active ones validate.
func (as *assignment) count(jury []string, author string) {
	for i := range as.coverage {
		c := &as.coverage[i]
		n := 0
		for _, name := range jury {
			var v int
			fmt.Sscanf(name, "a%d", &v)
			if v < c.active {
				n++
			}
		}
		c.traces++
		c.minimum = min(c.minimum, n)
		if n < 3 && activeOthers(c.active, author) >= 3 {
			c.short++
		}
	}
}

// activeOthers is how many of the active validators are not the author.
func activeOthers(active int, author string) int {
	var v int
	if _, err := fmt.Sscanf(author, "a%d", &v); err == nil && v < active {
		return active - 1
	}
	return active
}

func agentName(i int) string { return fmt.Sprintf("a%06d", i) }

// report prints the assignment's figures: the mesh's coverage and what
// signal took to draw the juries.
func (as assignment) report(o options) {
	fmt.Printf("assignment (mesh-2026-4, k = %d): %d validators with standing; signal drew each day's juries in %s CPU s (%d pools computed)\n",
		signal.JurySize, as.validators, seconds(as.seconds), as.computed)
	fmt.Printf("the node is on the jury of %d of the %d others' traces of the measured day(s): %.1f a day, k × traces ÷ validators = %.1f\n",
		as.assigned, as.others, float64(as.assigned)/float64(o.days), float64(signal.JurySize*as.others)/float64(o.days*as.validators))
	for _, c := range as.coverage {
		fmt.Printf("coverage, %.0f%% of validators away (%d active): %d traces of the measured day(s), %d with fewer than 3 validations, fewest %d\n",
			100*c.away, c.active, c.traces, c.short, c.minimum)
	}
}

func seconds(xs []float64) string {
	var b []byte
	for i, x := range xs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = fmt.Appendf(b, "%.1f", x)
	}
	return string(b)
}
