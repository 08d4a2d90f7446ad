package main

import (
	"testing"

	"github.com/meshnode/meshnode/internal/relay"
)

// traffic is what a run measures that keeping the state in memory must
// not change: requests, bytes, what the node read and when, and the
// validations it writes.
type traffic struct {
	requests, bodyBytes, seen, delay, validations, assigned int64
}

func simulated(t *testing.T, o options) counts {
	t.Helper()
	agents, err := makeAgents(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assign(o, agents); err != nil {
		t.Fatal(err)
	}
	m, err := simulate(o, agents)
	if err != nil {
		t.Fatal(err)
	}
	return m[1]
}

func trafficOf(c counts) traffic {
	return traffic{c.requests, c.bodyBytes, c.seen, int64(c.delaySum), c.validationsAll, c.validationsAssigned}
}

// The warm-up keeps the nodes' state in memory, and -state-in-memory the
// measured days too: loading what was saved gives back the same cursors
// but for poll times no schedule reads, so the traffic must be the same
// as a run that loads and saves at every heartbeat.
func TestStateInMemoryChangesNoTraffic(t *testing.T) {
	base := options{agents: 24, days: 1, relays: 2, publish: 0.5, validators: 6, seed: 5, directPoll: relay.DefaultDirectPoll}
	reloaded := base
	reloaded.reloadWarmup = true
	want := simulated(t, reloaded)
	if want.requests == 0 || want.seen == 0 || want.validationsAll == 0 || want.filesWritten == 0 {
		t.Fatalf("a run that reloads at every heartbeat measured %+v: the test checks nothing", want)
	}
	inMemory := base
	inMemory.stateInMemory = true
	for name, o := range map[string]options{"warm-up in memory": base, "every heartbeat in memory": inMemory} {
		got := simulated(t, o)
		if trafficOf(got) != trafficOf(want) {
			t.Errorf("%s: %+v, want the traffic of a run that reloads at every heartbeat, %+v", name, trafficOf(got), trafficOf(want))
		}
	}
}
