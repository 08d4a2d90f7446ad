package signal

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/slowtest"
)

// keptBy is a ComputeKeeping filter as a heartbeat's is: one agent's
// listings by URL prefix, and others by their hash, here its last byte.
func keptBy(url string, h manifest.Hash) bool {
	return strings.HasPrefix(url, "https://r01.example/") || h[len(h)-1]%3 == 0
}

// TestComputeKeepingChangesNothingButWhichResultsItHolds: over generated
// histories and every rule set, a report that keeps some results is the
// whole report with the others left out: its results those of the whole
// in the same order, every agent, round, trust edge and pool the same.
func TestComputeKeepingChangesNothingButWhichResultsItHolds(t *testing.T) {
	seeds := int64(3)
	if slowtest.Enabled() {
		seeds = 100
	}
	var kept, dropped, copies int
	for seed := int64(1); seed <= seeds; seed++ {
		base, evs := timedHistory(seed)
		full := recordAll(evs)
		for _, rules := range KnownRules() {
			wholePools, keptPools := NewPools(), NewPools()
			whole := wholePools.Compute(inputFrom(full, base, rules))
			got := keptPools.ComputeKeeping(inputFrom(full, base, rules),
				func(t *ledger.Trace) bool { return keptBy(t.URL, t.Hash) })
			want := whole
			want.Traces = slices.DeleteFunc(slices.Clone(whole.Traces), func(r TraceResult) bool { return !keptBy(r.URL, r.Hash) })
			if !reflect.DeepEqual(got, want) || !bytes.Equal(mustJSON(got), mustJSON(want)) {
				t.Fatalf("seed %d, %s: keeping some results changed the report:\n got %+v\nwant %+v", seed, rules, got, want)
			}
			if g, w := MarshalPools(keptPools), MarshalPools(wholePools); !bytes.Equal(g, w) {
				t.Fatalf("seed %d, %s: keeping some results kept other pools:\n got %s\nwant %s", seed, rules, g, w)
			}
			kept, dropped = kept+len(got.Traces), dropped+len(whole.Traces)-len(got.Traces)
			for _, r := range got.Traces {
				if r.Copy {
					copies++
				}
			}
		}
	}
	if kept == 0 || dropped == 0 || copies == 0 {
		t.Errorf("%d results kept (%d of copies), %d dropped: the histories test nothing", kept, copies, dropped)
	}
}
