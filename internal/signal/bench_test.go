package signal

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// benchMesh is a mesh of agents×perAgent traces, each validated by the
// next three agents, with two founders: standing spreads from them in a
// few rounds.
func benchMesh(agents, perAgent int) Input {
	in := Input{Founders: founders("a000", "a001")}
	name := func(i int) string { return fmt.Sprintf("a%03d", i%agents) }
	for i := 0; i < agents; i++ {
		for s := 1; s <= perAgent; s++ {
			t := tr(name(i), s, "capability", "rock")
			in.Traces = append(in.Traces, t)
			for k := 1; k <= 3; k++ {
				in.Validations = append(in.Validations, val(name(i+k), t.Hash, "pass"))
			}
		}
	}
	return in
}

// chainMesh is the worst case for the closure: agent i is validated only
// by agent i-1, so each round admits one agent.
func chainMesh(agents int) Input {
	in := Input{Founders: founders("c000")}
	for i := 1; i < agents; i++ {
		for s := 1; s <= 5; s++ {
			t := tr(fmt.Sprintf("c%03d", i), s, "capability", "rock")
			in.Traces = append(in.Traces, t)
			in.Validations = append(in.Validations, val(fmt.Sprintf("c%03d", i-1), t.Hash, "pass"))
		}
	}
	return in
}

func BenchmarkCompute(b *testing.B) {
	v2 := func(in Input) Input { in.Rules = RulesMesh2026v2; return in }
	v3 := func(in Input) Input { in.Rules = RulesMesh2026v3; return in }
	v4 := func(in Input) Input { in.Rules = RulesMesh2026v4; return in }
	days20 := overDays(v4(benchMesh(50, 200)), 20)
	for _, bc := range []struct {
		name  string
		in    Input
		pools []byte // the pool cache file read before each Compute; nil: none
	}{
		{"mesh-50x200", benchMesh(50, 200), nil},
		{"chain-200", chainMesh(200), nil},
		{"mesh-50x200-" + RulesMesh2026v2, v2(benchMesh(50, 200)), nil},
		{"mesh-50x200-" + RulesMesh2026v3, disputedMesh(v3(benchMesh(50, 200))), nil},
		{"mesh-50x200-20days-" + RulesMesh2026v3, overDays(v3(benchMesh(50, 200)), 20), nil},
		{"mesh-50x200-20days-" + RulesMesh2026v4, days20, nil},
		// A heartbeat with the pools of the 19 days before kept: the first
		// of day 20 computes its pool, the later ones none.
		{"mesh-50x200-20days-" + RulesMesh2026v4 + "-newday", days20, poolsOf(firstDays(days20, 19))},
		{"mesh-50x200-20days-" + RulesMesh2026v4 + "-kept", days20, poolsOf(days20)},
		// A later heartbeat of day 20 that read one more vote of the day,
		// with the pools of its first heartbeat kept: under mesh-2026-7 the
		// late epochs' pools (days 21 and 22) take files of day 20, and
		// are computed again at every such heartbeat.
		{"mesh-50x200-20days-" + RulesMesh2026v6 + "-newvote", withRules(withVote(days20), RulesMesh2026v6), poolsOf(withRules(days20, RulesMesh2026v6))},
		{"mesh-50x200-20days-" + RulesMesh2026v7 + "-newvote", withRules(withVote(days20), RulesMesh2026v7), poolsOf(withRules(days20, RulesMesh2026v7))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var r Report
			for i := 0; i < b.N; i++ {
				if bc.pools == nil {
					r = Compute(bc.in)
					continue
				}
				p, err := ReadPools(bc.pools)
				if err != nil {
					b.Fatal(err)
				}
				r = p.Compute(bc.in)
			}
			b.ReportMetric(float64(r.Rounds), "rounds")
		})
	}
}

// withRules is in under rules.
func withRules(in Input, rules string) Input {
	in.Rules = rules
	return in
}

// withVote is in (made by overDays) with one vote more, dated on the
// last day: a2's pass of the last trace's, at 12:00 of its day.
func withVote(in Input) Input {
	t := in.Traces[len(in.Traces)-1]
	v := val("a002", t.Hash, "pass")
	v.ValidatedAt = t.Submitted
	in.Validations = append(slices.Clone(in.Validations), v)
	return in
}

// poolsOf is the pool cache file a node holds after computing SIGNAL
// over in.
func poolsOf(in Input) []byte {
	p := NewPools()
	p.Compute(in)
	return MarshalPools(p)
}

// firstDays is in (made by overDays) with only its traces of the first
// days days and the votes on them.
func firstDays(in Input, days int) Input {
	end := time.Date(2026, 3, days+1, 0, 0, 0, 0, time.UTC)
	kept := map[manifest.Hash]bool{}
	out := in
	out.Traces = nil
	for _, t := range in.Traces {
		if t.Submitted.Before(end) {
			out.Traces = append(out.Traces, t)
			kept[t.Hash] = true
		}
	}
	out.Validations = nil
	for _, v := range in.Validations {
		if kept[v.TraceHash] {
			out.Validations = append(out.Validations, v)
		}
	}
	return out
}

// overDays spreads in's traces over days UTC days of March 2026, each
// validated on its own day: under mesh-2026-4, one pool a day.
func overDays(in Input, days int) Input {
	day := map[manifest.Hash]int{}
	in.Traces = slices.Clone(in.Traces)
	for i := range in.Traces {
		day[in.Traces[i].Hash] = 1 + i%days
		in.Traces[i] = dated(in.Traces[i], day[in.Traces[i].Hash])
	}
	in.Validations = slices.Clone(in.Validations)
	for i := range in.Validations {
		in.Validations[i] = at(in.Validations[i], day[in.Validations[i].TraceHash])
	}
	return in
}

// disputedMesh is in under mesh-2026-3 with 2,030 disputes: every agent
// disputed on 40 of its files, each by one other agent, which costs
// nothing, and ten agents on three files by the two founders, which costs
// them standing.
func disputedMesh(in Input) Input {
	in.Rules = RulesMesh2026v3
	for i := 0; i < 50; i++ {
		agent := fmt.Sprintf("a%03d", i)
		for s := 1; s <= 20; s++ {
			in.Disputes = append(in.Disputes, disp(fmt.Sprintf("a%03d", (i+5)%50), agent, 200-s), disp(fmt.Sprintf("a%03d", (i+7)%50), agent, 180-s))
		}
		if i >= 2 && i < 12 { // the last the closure reaches: the rest still spreads
			in.Disputes = append(in.Disputes, disputesOf(agent, []int{197, 198, 199}, "a000", "a001")...)
		}
	}
	return in
}

func TestBenchMeshesReachEveryone(t *testing.T) {
	for _, in := range []Input{benchMesh(10, 5), chainMesh(20)} {
		for _, a := range Compute(in).Agents {
			if !a.Standing {
				t.Errorf("%s has no standing: %+v", a.Agent, a)
			}
		}
	}
}

// randomMesh is a mesh of random traces and votes, the same for a seed.
func randomMesh(seed int64) Input {
	rng := rand.New(rand.NewSource(seed))
	agents := 3 + rng.Intn(12)
	name := func() string { return fmt.Sprintf("r%02d", rng.Intn(agents)) }
	types := []string{"capability", "knowledge", "signal", "task", "note"}
	cats := []string{"rock", "pebble", "sand", ""}
	in := Input{Founders: founders(name(), name(), name())}
	for i := 0; i < 20+rng.Intn(60); i++ {
		t := tr(name(), i, types[rng.Intn(len(types))], cats[rng.Intn(len(cats))])
		in.Traces = append(in.Traces, t)
		if rng.Intn(6) == 0 {
			// Another agent lists the same bytes (docs/decisions.md, Copies).
			in.Copies = append(in.Copies, listedBy(t, name(), 100+i))
		}
		for v := rng.Intn(5); v > 0; v-- {
			result := "pass"
			if rng.Intn(3) == 0 {
				result = "fail"
			}
			lv := val(name(), t.Hash, result)
			lv.SourceHash = manifest.Hash(fmt.Sprintf("sha256:val-%d-%d", i, v))
			in.Validations = append(in.Validations, lv)
			if rng.Intn(8) == 0 {
				in.Validations = append(in.Validations, filedAs(lv, name(), lv.SourceHash))
			}
		}
	}
	for i := rng.Intn(80); i > 0; i-- {
		in.Disputes = append(in.Disputes, disp(name(), name(), 60+rng.Intn(6)))
	}
	return in
}

// readCopiesFirst is in as a node would hold it had it read every copy
// before the listing it read first: each copy's listing in Traces, the
// first listing among the copies.
func readCopiesFirst(in Input) Input {
	out := in
	out.Traces, out.Copies = nil, nil
	swapped := map[manifest.Hash]bool{}
	for _, c := range in.Copies {
		if !swapped[c.Hash] {
			swapped[c.Hash] = true
			out.Traces = append(out.Traces, c)
		} else {
			out.Copies = append(out.Copies, c)
		}
	}
	for _, t := range in.Traces {
		if swapped[t.Hash] {
			out.Copies = append(out.Copies, t)
		} else {
			out.Traces = append(out.Traces, t)
		}
	}
	return out
}

// TestClosureRoundsAgreeWithTheReport: under every rule set, the SIGNAL of
// a round (signals) is the SIGNAL the report gives, every agent the rules
// admit has standing unless mismatches took it, none with standing has
// the mismatches that take it, and the report does not depend on the
// order of the input, nor, under rules that judge copies, on which listing
// of copied bytes the node read first.
func TestClosureRoundsAgreeWithTheReport(t *testing.T) {
	for _, name := range KnownRules() {
		rules, _ := RulesNamed(name)
		for seed := int64(1); seed <= 200; seed++ {
			in := randomMesh(seed)
			in.Rules = name
			r := Compute(in)
			m := newMesh(in, rules)
			if rules.JurySize > 0 {
				m.assign(newAssigner(in, rules, nil), math.MaxInt64)
			}
			has := make([]bool, len(m.keyOf))
			for _, a := range r.Agents {
				has[m.ids[m.key(a.Agent, a.URL)]] = a.Standing
			}
			o := m.evaluate(has, outcome{})
			sig := m.signals(o)
			for _, a := range r.Agents {
				id := m.ids[m.key(a.Agent, a.URL)]
				if got := sig[id]; got != a.Signal {
					t.Fatalf("%s seed %d: %s: round SIGNAL %v, report %v", name, seed, a.Agent, got, a.Signal)
				}
				if rules.admits(a.Signal, o.admitters[id]) && !a.Standing && !a.StandingLost {
					t.Fatalf("%s seed %d: %s at %v has no standing", name, seed, a.Agent, a.Signal)
				}
				if a.Standing && rules.LoseAtMismatches > 0 && a.Mismatches >= rules.LoseAtMismatches {
					t.Fatalf("%s seed %d: %s keeps standing with %d mismatches", name, seed, a.Agent, a.Mismatches)
				}
				if a.StandingLost && rules.LoseAtMismatches == 0 {
					t.Fatalf("%s seed %d: %s lost standing under rules that take none", name, seed, a.Agent)
				}
			}
			rev := Input{Founders: in.Founders, Rules: name}
			for i := len(in.Traces) - 1; i >= 0; i-- {
				rev.Traces = append(rev.Traces, in.Traces[i])
			}
			for i := len(in.Validations) - 1; i >= 0; i-- {
				rev.Validations = append(rev.Validations, in.Validations[i])
			}
			for i := len(in.Disputes) - 1; i >= 0; i-- {
				rev.Disputes = append(rev.Disputes, in.Disputes[i])
			}
			for i := len(in.Copies) - 1; i >= 0; i-- {
				rev.Copies = append(rev.Copies, in.Copies[i])
			}
			if !reflect.DeepEqual(Compute(rev), r) {
				t.Fatalf("%s seed %d: input order changed the report", name, seed)
			}
			if rules.CopiesEarnNothing && !reflect.DeepEqual(Compute(readCopiesFirst(in)), r) {
				t.Fatalf("%s seed %d: which listing was read first changed the report", name, seed)
			}
		}
	}
}
