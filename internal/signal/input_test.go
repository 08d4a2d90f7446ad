package signal

import (
	"encoding/json"
	"math/rand"
	"testing"
)

// TestComputationsLeaveTheirInputAsItWas holds what the heartbeat relies on
// when it keeps one Input for a whole heartbeat: Compute, Pools and
// Assignments point into their input's records (docs/decisions.md,
// Memory) and never write through them, nor reorder its slices.
func TestComputationsLeaveTheirInputAsItWas(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		for _, raw := range []Input{randomMesh(seed), admissions(rand.New(rand.NewSource(seed)))} {
			for _, rules := range KnownRules() {
				in := withRules(raw, rules)
				before := jsonOf(t, in)
				Compute(in)
				p := NewPools()
				p.Compute(in)
				if as, ok := p.Assignments(in); ok {
					for _, tr := range in.Traces {
						as.Jury(tr)
						as.Reserve(tr)
						as.LateReserve(tr)
					}
				}
				if after := jsonOf(t, in); after != before {
					t.Fatalf("seed %d, %s: the computations changed their input", seed, rules)
				}
			}
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
