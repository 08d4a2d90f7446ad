package signal

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
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
	for _, bc := range []struct {
		name string
		in   Input
	}{
		{"mesh-50x200", benchMesh(50, 200)},
		{"chain-200", chainMesh(200)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var r Report
			for i := 0; i < b.N; i++ {
				r = Compute(bc.in)
			}
			b.ReportMetric(float64(r.Rounds), "rounds")
		})
	}
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
	in := Input{Founders: founders(name())}
	for i := 0; i < 20+rng.Intn(60); i++ {
		t := tr(name(), i, types[rng.Intn(len(types))], cats[rng.Intn(len(cats))])
		in.Traces = append(in.Traces, t)
		for v := rng.Intn(5); v > 0; v-- {
			result := "pass"
			if rng.Intn(3) == 0 {
				result = "fail"
			}
			in.Validations = append(in.Validations, val(name(), t.Hash, result))
		}
	}
	return in
}

// TestClosureRoundsAgreeWithTheReport: the fast SIGNAL of a round (signals)
// is the SIGNAL the report gives, every agent at 50 or more has standing,
// and the report does not depend on the order of the input.
func TestClosureRoundsAgreeWithTheReport(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		in := randomMesh(seed)
		r := Compute(in)
		m := newMesh(in)
		rounds := make([]int, len(m.keyOf))
		for id, k := range m.keyOf {
			rounds[id] = -1
			for _, a := range r.Agents {
				if a.Standing && m.key(a.Agent, a.URL) == k {
					rounds[id] = a.StandingRound
				}
			}
		}
		sig := m.signals(rounds)
		for _, a := range r.Agents {
			if got := sig[m.ids[m.key(a.Agent, a.URL)]]; got != a.Signal {
				t.Fatalf("seed %d: %s: round SIGNAL %v, report %v", seed, a.Agent, got, a.Signal)
			}
			if a.Signal >= EstablishedAt && !a.Standing {
				t.Fatalf("seed %d: %s at %v has no standing", seed, a.Agent, a.Signal)
			}
		}
		rev := Input{Founders: in.Founders}
		for i := len(in.Traces) - 1; i >= 0; i-- {
			rev.Traces = append(rev.Traces, in.Traces[i])
		}
		for i := len(in.Validations) - 1; i >= 0; i-- {
			rev.Validations = append(rev.Validations, in.Validations[i])
		}
		if !reflect.DeepEqual(Compute(rev), r) {
			t.Fatalf("seed %d: input order changed the report", seed)
		}
	}
}
