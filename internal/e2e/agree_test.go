package e2e

import (
	"reflect"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

// reportOf is SIGNAL as the named node computes it from its files.
func reportOf(t *testing.T, m *testMesh, name string) signal.Report {
	t.Helper()
	n := m.node(name)
	in, err := signal.Load(n.dir, n.name, n.url)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return signal.Compute(in)
}

// TestNodesAgreeOnAPeerThatPublishedADispute: bob disputes ada's tampered
// trace and publishes the dispute; cy, polling bob, must not take the
// dispute for one of bob's traces (to score, queue or count), so bob and
// cy compute the same statuses and SIGNALs from the same files
// (docs/protocol.md §8.5).
func TestNodesAgreeOnAPeerThatPublishedADispute(t *testing.T) {
	honest := readTestdata(t, "traces/ada/001-retry-ladder.md")
	tampered := strings.Replace(honest, "31 of 40", "39 of 40", 1)
	m := newMesh(t, "ada", "bob", "cy")
	m.configure("ada", gated)
	m.configure("bob", founding)
	m.configure("cy", founding)
	publishByHand(t, m.node("ada"), "ada", map[string]string{"traces/001-retry-ladder.md": tampered},
		map[string]manifest.Hash{"traces/001-retry-ladder.md": hashOf(honest)})
	m.node("bob").addTraces(t, "bob", "001-bob-intro.md")

	if sum := m.beat("bob"); sum.DisputesPublished != 1 {
		t.Fatalf("bob published %d disputes, want 1", sum.DisputesPublished)
	}
	// ada, whose published file was tampered with, refuses to run; bob
	// and cy poll each other until both have read everything.
	for range 3 {
		m.now = m.now.Add(heartbeatEvery)
		m.beat("cy")
		m.beat("bob")
	}

	bobs, cys := reportOf(t, m, "bob"), reportOf(t, m, "cy")
	if !reflect.DeepEqual(bobs.Agents, cys.Agents) {
		t.Errorf("bob and cy disagree on SIGNAL:\nbob %+v\ncy  %+v", bobs.Agents, cys.Agents)
	}
	traces := func(r signal.Report) []string {
		var out []string
		for _, tr := range r.Traces {
			if tr.Agent == "bob" {
				out = append(out, string(tr.Hash)+" "+string(tr.Status))
			}
		}
		return out
	}
	if b, c := traces(bobs), traces(cys); !reflect.DeepEqual(b, c) || len(b) != 1 {
		t.Errorf("bob's traces: bob computes %v, cy %v; want bob's one trace on both", b, c)
	}
	for _, it := range queueItems(t, m.node("cy").dir) {
		if strings.Contains(it.TraceURL, "/disputes/") {
			t.Errorf("cy queued bob's dispute for validation: %+v", it)
		}
	}
}
