package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
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

// TestThreeNodesAndTheRealMeshAgree: three nodes that poll each other and
// the 13 agents of the real snapshot (issue 19's "done when"), two of them
// founders that validate everything they read, compute the same statuses,
// SIGNAL, tiers and standing once the mesh has settled: each from the
// files it holds, none from its own point of view.
func TestThreeNodesAndTheRealMeshAgree(t *testing.T) {
	corpus := corpustest.Dir(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(corpus)))
	t.Cleanup(srv.Close)
	data, err := os.ReadFile(filepath.Join(corpus, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := roster.Parse(data)
	if len(agents) < 10 {
		t.Fatalf("the snapshot's AGENTS.md lists %d agents", len(agents))
	}
	m := newMesh(t, "ada", "bob", "cy")
	m.configure("ada", gated)
	m.configure("bob", founding)
	m.configure("cy", founding)
	for _, n := range m.nodes {
		list, err := os.ReadFile(filepath.Join(n.dir, node.AgentsFile))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.Write(list)
		for _, a := range agents {
			fmt.Fprintf(&b, "%s | %s/agents-hosted/%s/ | 2026-02-01\n", a.Name, srv.URL, a.Name)
		}
		writeFile(t, n.dir, node.AgentsFile, b.String())
	}
	m.node("ada").addTraces(t, "ada", "001-retry-ladder.md", "002-gap-cursor.md")
	// A founder publishes at most 100 validations of one agent's traces a
	// heartbeat (docs/security.md), and newagent2 has 246.
	m.settle(12)

	want := reportOf(t, m, "bob")
	if len(want.Traces) < 850 {
		t.Fatalf("bob resolved %d traces, want the snapshot's and the nodes'", len(want.Traces))
	}
	for _, name := range []string{"ada", "cy"} {
		got := reportOf(t, m, name)
		if !reflect.DeepEqual(got.Agents, want.Agents) {
			t.Errorf("%s and bob disagree on SIGNAL, tiers or standing:\n%s %+v\nbob %+v", name, name, got.Agents, want.Agents)
		}
		if !reflect.DeepEqual(got.Traces, want.Traces) {
			t.Errorf("%s and bob disagree on the statuses of %d and %d traces", name, len(got.Traces), len(want.Traces))
		}
	}
}
