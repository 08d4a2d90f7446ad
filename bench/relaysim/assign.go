package main

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

// Validation by assignment, on the same mesh: the first -validators
// agents are the founders, the agents with standing (nobody else earns
// it in the days simulated), and the node is the first of them. Each
// day's traces are added to a signal.Input, their juries drawn by
// signal's own assignment (Pools.Assignments, the pool of the epoch each
// trace falls in computed by signal's standing closure over the files
// dated before it), and every juror present writes its validation, which
// the next day's pool is computed over. Under mesh-2026-3 every
// validator validates every trace that is not its own.
//
// Coverage is counted on the last day, for each share of the validators
// away (the last ones of the founders): under mesh-2026-4, whose juries
// are drawn from the validators with standing whether present or not;
// and under mesh-2026-5, whose juries pass over the validators that left
// an assignment unanswered (signal.AwayAfterDays), both for validators
// away since the first day (a steady absence: from day AwayAfterDays on
// their absence shows in the files) and for validators away from the
// last day only (an absence that began that day, which no file shows
// yet: that day's juries are those of a mesh where all were present).
// Under mesh-2026-6, the same two absences, with the reserve stepping in
// by the reference node's policy (heartbeat.ReserveDelay,
// heartbeat.ReserveShort): every present member of a trace's reserve
// validates it ReserveDelay and half an hour after its day began when
// its present jurors cast fewer than ReserveShort votes. They step in
// together, each at its own heartbeat before the others' votes reach it,
// which is what the node's policy gives when their heartbeats fall in
// the same half hour: the most the reserve can cost.
// Under mesh-2026-7, an absence that begins on the last day is run as
// such (the validators away write nothing on it), the jury and reserve
// present vote as under mesh-2026-6, and two days on, for every trace
// still short of heartbeat.ReserveShort, every present member of its late
// reserve (drawn by signal from the files with the last day's votes in:
// its pool is that of the last day + AwayAfterDays) validates it half an
// hour after the late reserve's policy makes it due; each trace's votes
// are then counted by signal.Compute itself, so a late vote counts only
// as the rule says (dated from the late epoch on).

// awayShares are the shares of validators with standing that are away
// (validate nothing) for which coverage is counted.
var awayShares = []float64{0, 0.2, 0.4}

// tally is, for one rule set and one model of absence, how many of the
// last day's traces got fewer than three validations while at least
// three validators with standing were active, and the fewest any got;
// and the validations cast on them, those of them by the reserve.
type tally struct {
	traces, short, minimum int
	votes, reserve         int
}

// coverage is one share of validators away: the last day's tallies under
// mesh-2026-4, and under mesh-2026-5 with the validators away since the
// first day (steady) or from the last day on (today).
type coverage struct {
	away              float64
	active            int
	v4, steady, today tally
	// v6steady and v6today are the same absences under mesh-2026-6.
	v6steady, v6today tally
	// v7today is the absence from the last day under mesh-2026-7,
	// counted by signal after the late reserve's votes.
	v7today lateTally
}

// lateTally is a tally under mesh-2026-7: the traces short, by
// signal's count, and the late reserve's votes and how many hours after
// their trace's day began each was cast.
type lateTally struct {
	tally
	late   int
	active int // validators active on the late day
	hours  []float64
}

// assignment is what the assignment part of a run found.
type assignment struct {
	validators int
	coverage   []coverage
	// seconds is the CPU time signal took over each day's assignments
	// under mesh-2026-4, from its pool to the last jury; computed is the
	// pools it computed.
	seconds  []float64
	computed int
	// assigned is how many of the measured days' traces name the node,
	// of others' traces in all (mesh-2026-4).
	assigned, others int
}

// assign draws every trace's jury under mesh-2026-4, marks in each agent
// the publishes the node is assigned (agent.assigned), and counts the
// last day's coverage under mesh-2026-4 and mesh-2026-5.
func assign(o options, agents []*agent) (assignment, error) {
	out := assignment{validators: o.validators}
	if o.validators < 1 || o.validators > len(agents) {
		return out, fmt.Errorf("-validators %d: want 1 to -agents (%d)", o.validators, len(agents))
	}
	for _, c := range awayShares {
		active := o.validators - int(math.Round(c*float64(o.validators)))
		out.coverage = append(out.coverage, coverage{away: c, active: active,
			v4: tally{minimum: math.MaxInt}, steady: tally{minimum: math.MaxInt}, today: tally{minimum: math.MaxInt},
			v6steady: tally{minimum: math.MaxInt}, v6today: tally{minimum: math.MaxInt}, v7today: lateTally{tally: tally{minimum: math.MaxInt}}})
	}
	everyone := func(int, int) bool { return true }
	pools, _, err := drawJuries(o, agents, signal.RulesMesh2026v4, everyone, func(day int, d drawn) {
		out.seconds = append(out.seconds, d.seconds)
		for i, t := range d.traces {
			owners := d.owners[i]
			owners.a.assigned[owners.p] = d.as.AssignedTo(&t, agents[0].url)
			if day > 0 && owners.a != agents[0] {
				out.others++
				if owners.a.assigned[owners.p] {
					out.assigned++
				}
			}
			if day == o.days {
				for c := range out.coverage {
					out.coverage[c].v4.count(d.juries[i], nil, t.Agent, out.coverage[c].active)
				}
			}
		}
	})
	if err != nil {
		return out, err
	}
	out.computed = pools.Computed()
	if err := out.countAway(o, agents, signal.RulesMesh2026v5, func(c *coverage) (*tally, *tally) { return &c.steady, &c.today }); err != nil {
		return out, err
	}
	if err := out.countAway(o, agents, signal.RulesMesh2026v6, func(c *coverage) (*tally, *tally) { return &c.v6steady, &c.v6today }); err != nil {
		return out, err
	}
	return out, out.countLate(o, agents)
}

// countLate counts, under mesh-2026-7, the last day's traces for each
// share of validators away from the last day: the jury and reserve
// present vote as drawJuries has them, then the late reserve present of
// each trace still short (countLateOf), and signal counts the votes.
func (as *assignment) countLate(o options, agents []*agent) error {
	for c := range as.coverage {
		cv := &as.coverage[c]
		present := func(v, day int) bool { return v < cv.active || day < o.days }
		var last drawn
		pools, in, err := drawJuries(o, agents, signal.RulesMesh2026v7, present, func(day int, d drawn) {
			if day == o.days {
				last = d
			}
		})
		if err != nil {
			return err
		}
		if err := cv.v7today.countLateOf(pools, in, last.traces, agents, cv.active); err != nil {
			return err
		}
	}
	return nil
}

// countLateOf adds to the tally the traces, of the files in, after the
// late reserve present (the first active validators) of each trace with
// fewer than heartbeat.ReserveShort votes in has validated it, half an
// hour after the policy makes it due; the votes are counted by
// signal.Compute over in and them.
func (t *lateTally) countLateOf(pools *signal.Pools, in signal.Input, traces []ledger.Trace, agents []*agent, active int) error {
	cast := map[manifest.Hash]int{}
	for _, v := range in.Validations {
		cast[v.TraceHash]++
	}
	as, ok := pools.Assignments(in)
	if !ok {
		return fmt.Errorf("rule set %s assigns nothing", in.Rules)
	}
	var late []*ledger.Validation
	for _, tr := range traces {
		if cast[tr.Hash] >= heartbeat.ReserveShort {
			continue
		}
		at := tr.Submitted.Add(heartbeat.ReserveDelay + heartbeat.LateReserveDelay + 30*time.Minute)
		vs := votes(tr, as.LateReserve(&tr), agents, func(v int) bool { return v < active }, at)
		for range vs {
			t.hours = append(t.hours, at.Sub(signal.EpochStart(tr.Submitted)).Hours())
		}
		late = append(late, vs...)
	}
	t.late += len(late)
	t.active = active
	in.Validations = append(slices.Clone(in.Validations), late...)
	seen := map[manifest.Hash]int{}
	for _, r := range pools.Compute(in).Traces {
		seen[r.Hash] = r.Seen
	}
	for _, tr := range traces {
		n := seen[tr.Hash]
		t.votes += n
		t.traces++
		t.minimum = min(t.minimum, n)
		if n < 3 && activeOthers(active, tr.Agent) >= 3 {
			t.short++
		}
	}
	return nil
}

// countAway counts the last day's coverage under rules (mesh-2026-5 or
// mesh-2026-6), into the tallies pick gives of each share: with every
// validator present until the last day (away today), and for each share
// away with its validators away from the first day (steady).
func (as *assignment) countAway(o options, agents []*agent, rules string, pick func(*coverage) (steady, today *tally)) error {
	for c := range as.coverage {
		cv := &as.coverage[c]
		present := func(v, _ int) bool { return v < cv.active }
		_, _, err := drawJuries(o, agents, rules, present, func(day int, d drawn) {
			if day != o.days {
				return
			}
			for i, t := range d.traces {
				steady, _ := pick(cv)
				steady.count(d.juries[i], d.reserves[i], t.Agent, cv.active)
				if cv.away == 0 { // all present until today: every share's absence begins today
					for s := range as.coverage {
						_, today := pick(&as.coverage[s])
						today.count(d.juries[i], d.reserves[i], t.Agent, as.coverage[s].active)
					}
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// drawn is one day's traces, who published each, their juries, and the
// CPU seconds signal took to draw them.
type drawn struct {
	as       signal.Assignments
	traces   []ledger.Trace
	owners   []publishRef
	juries   [][]string
	reserves [][]string // empty under rules without a reserve
	seconds  float64
}

// drawJuries simulates the juries of days 0 to -days under rules: each
// day's traces are added to the input, their juries drawn by signal from
// the files so far, and every juror present(validator, day) writes its
// validation an hour after the trace. each sees every day's juries; the
// files of all the days are returned with the pools.
func drawJuries(o options, agents []*agent, rules string, present func(v, day int) bool, each func(day int, d drawn)) (*signal.Pools, signal.Input, error) {
	in := signal.Input{Rules: rules}
	for i := range o.validators {
		in.Founders = append(in.Founders, signal.Founder{Name: agentName(i), URL: agents[i].url})
	}
	pools := signal.NewPools()
	for day := 0; day <= o.days; day++ {
		var d drawn
		d.traces, d.owners = tracesOfDay(agents, day)
		for i := range d.traces {
			in.Traces = append(in.Traces, &d.traces[i])
		}
		cpu0 := cpuTime()
		var ok bool
		if d.as, ok = pools.Assignments(in); !ok {
			return nil, in, fmt.Errorf("rule set %s assigns nothing", in.Rules)
		}
		d.juries, d.reserves = make([][]string, len(d.traces)), make([][]string, len(d.traces))
		for i, t := range d.traces {
			d.juries[i], d.reserves[i] = d.as.Jury(&t), d.as.Reserve(&t)
		}
		d.seconds = (cpuTime() - cpu0).Seconds()
		for i, t := range d.traces {
			in.Validations = append(in.Validations, validations(t, d.juries[i], d.reserves[i], agents, func(v int) bool { return present(v, day) })...)
		}
		each(day, d)
	}
	return pools, in, nil
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

// validations are the validations of t by the jurors present, each an
// hour after it, passing; and when they are fewer than
// heartbeat.ReserveShort, by the reserve present, half an hour after the
// reserve's policy makes the trace due.
func validations(t ledger.Trace, jury, reserve []string, agents []*agent, present func(int) bool) []*ledger.Validation {
	out := votes(t, jury, agents, present, t.Submitted.Add(time.Hour))
	if len(out) < heartbeat.ReserveShort {
		due := t.Submitted.Add(heartbeat.ReserveDelay + 30*time.Minute)
		out = append(out, votes(t, reserve, agents, present, due)...)
	}
	return out
}

// votes are the passes of t by the members of names present, dated at.
func votes(t ledger.Trace, names []string, agents []*agent, present func(int) bool, at time.Time) []*ledger.Validation {
	out := make([]*ledger.Validation, 0, len(names))
	for _, name := range names {
		i := validatorIndex(name)
		if !present(i) {
			continue
		}
		out = append(out, &ledger.Validation{Validator: name, ValidatorURL: agents[i].url, TraceURL: t.URL, TraceHash: t.Hash,
			Result: "pass", ValidatedAt: at})
	}
	return out
}

// validatorIndex is the index of the agent agentName named name.
func validatorIndex(name string) int {
	var i int
	fmt.Sscanf(name, "a%d", &i)
	return i
}

// count adds one trace's jury and reserve to the tally: the validators
// away are the last of the founders, so with active of them active the
// first active ones validate, and the reserve present steps in when the
// jury present casts fewer than heartbeat.ReserveShort votes.
func (t *tally) count(jury, reserve []string, author string, active int) {
	n := presentOf(jury, active)
	if n < heartbeat.ReserveShort {
		r := presentOf(reserve, active)
		n += r
		t.reserve += r
	}
	t.votes += n
	t.traces++
	t.minimum = min(t.minimum, n)
	if n < 3 && activeOthers(active, author) >= 3 {
		t.short++
	}
}

// presentOf is how many of names are among the first active validators.
func presentOf(names []string, active int) int {
	n := 0
	for _, name := range names {
		if validatorIndex(name) < active {
			n++
		}
	}
	return n
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
	fmt.Printf("coverage on day %d (the last), traces with fewer than 3 validations (fewest any got); mesh-2026-5 passes over jurors %d days after an assignment left unanswered:\n",
		o.days, signal.AwayAfterDays)
	for _, c := range as.coverage {
		fmt.Printf("  %2.0f%% of validators away (%d active): mesh-2026-4 %s; mesh-2026-5, away since day 0 %s; mesh-2026-5, away from day %d %s\n",
			100*c.away, c.active, c.v4, c.steady, o.days, c.today)
		fmt.Printf("      mesh-2026-6 (reserve of %d), away since day 0 %s; away from day %d %s\n",
			signal.ReserveSize, c.v6steady.withLoad(), o.days, c.v6today.withLoad())
		fmt.Printf("      validations a day per validator active: mesh-2026-5 %s, %s; mesh-2026-6 %s, %s\n",
			c.steady.load(c.active), c.today.load(c.active), c.v6steady.load(c.active), c.v6today.load(c.active))
		fmt.Printf("      mesh-2026-7 (late reserve of %d, drawn on day %d), away from day %d, counted by signal: %s\n",
			signal.LateReserveSize, o.days+signal.AwayAfterDays, o.days, c.v7today)
	}
}

// String is the tally, the late reserve's votes (per validator active,
// all cast on the late day), and the hours after their trace's day
// began they were cast, min / median / max.
func (t lateTally) String() string {
	return fmt.Sprintf("%s; %d validations by the late reserve (%.2f per validator active on day +%d); cast %s h after their trace's day began",
		t.tally, t.late, float64(t.late)/float64(max(t.active, 1)), signal.AwayAfterDays, spread(t.hours))
}

// spread is the min / median / max of xs, "-" when empty.
func spread(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return fmt.Sprintf("%.1f / %.1f / %.1f", s[0], s[len(s)/2], s[len(s)-1])
}

func (t tally) String() string {
	return fmt.Sprintf("%d of %d (%.1f %%; fewest %d)", t.short, t.traces, 100*float64(t.short)/float64(max(t.traces, 1)), t.minimum)
}

// withLoad is the tally and the validations its reserve cast.
func (t tally) withLoad() string {
	return fmt.Sprintf("%s, %d by the reserve", t, t.reserve)
}

// load is the validations cast on the day's traces per validator active,
// and of them the reserve's.
func (t tally) load(active int) string {
	return fmt.Sprintf("%.2f (reserve %.2f)", float64(t.votes)/float64(max(active, 1)), float64(t.reserve)/float64(max(active, 1)))
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
