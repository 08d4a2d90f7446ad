package e2e

import (
	"path"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/signal"
)

func TestTraceFetchedIsValidatedAndPublishedInTheSameHeartbeat(t *testing.T) {
	m := newMesh(t, "ada", "bob")
	m.configure("ada", gated)
	m.configure("bob", founding)
	m.node("ada").addTraces(t, "ada", adasTraces...)
	m.beat("ada")

	sum := m.beat("bob")

	if sum.NewTraces != 3 || sum.ValidationsPublished != 3 {
		t.Fatalf("one heartbeat fetched %d traces and published %d validations; want 3 and 3", sum.NewTraces, sum.ValidationsPublished)
	}
	vals := readValidations(t, m.node("bob").dir)
	listed := map[string]bool{}
	for _, e := range readManifest(t, m.node("bob").dir).Entries {
		listed[e.File] = true
	}
	for hash := range vals {
		f := path.Join(node.ValidationsDir, "val-"+hash.Hex(12)+".md")
		if !listed[f] {
			t.Errorf("%s was written but not listed in the MANIFEST of the same heartbeat", f)
		}
	}
}

func TestStatusesShowInTheHeartbeatThatSeesTheValidations(t *testing.T) {
	m := newMesh(t, "ada", "bob")
	m.configure("ada", gated)
	m.configure("bob", founding)
	ada := m.node("ada")
	ada.addTraces(t, "ada", adasTraces...)
	m.round() // ada publishes; bob validates and publishes its validations

	sum := m.beat("ada")

	if sum.NewValidations != 3 {
		t.Fatalf("ada saw %d of bob's validations; want 3", sum.NewValidations)
	}
	vals := readValidations(t, m.node("bob").dir)
	for _, e := range readManifest(t, ada.dir).Entries {
		v := vals[e.Hash]
		if v == nil {
			t.Fatalf("bob did not validate %s", e.File)
		}
		if want := statusFor(v.Result); e.Status != want {
			t.Errorf("%s: status %q right after the heartbeat that fetched bob's %s; want %q", e.File, e.Status, v.Result, want)
		}
	}
}

func TestHeartbeatWithNothingNewChangesNoFile(t *testing.T) {
	m := threeNodes(t)
	m.settle(maxRounds)
	// Presence refreshes a MANIFEST's updated time every 75 minutes; the
	// nothing-new heartbeat runs in the same half hour as the last one, so
	// only a real change could touch a file.
	last := m.now.Add(-heartbeatEvery)
	for _, n := range m.nodes {
		t.Run(n.name, func(t *testing.T) {
			before := snapshot(t, n.dir)
			sum := beatAt(t, n.dir, last)
			if diff := diffSnapshots(before, snapshot(t, n.dir)); len(diff) > 0 {
				t.Errorf("a heartbeat with nothing new changed files: %v", diff)
			}
			if sum.Changed {
				t.Errorf("a heartbeat with nothing new reports changed=true, so the workflow would commit")
			}
		})
	}
}

func TestRegeneratingAManifestWithNothingNewChangesNothing(t *testing.T) {
	m := threeNodes(t)
	m.settle(maxRounds)
	for _, n := range m.nodes {
		t.Run(n.name, func(t *testing.T) {
			before := snapshot(t, n.dir)
			res, err := publish.Publish(publish.Options{
				Dir: n.dir, Agent: n.name, URL: n.url, Now: m.now, Statuses: ownStatuses(t, n),
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed || len(res.NewFiles) > 0 {
				t.Errorf("changed=%v, new files %v; want nothing", res.Changed, res.NewFiles)
			}
			if diff := diffSnapshots(before, snapshot(t, n.dir)); len(diff) > 0 {
				t.Errorf("regenerating the MANIFEST with nothing new changed: %v", diff)
			}
		})
	}
}

// ownStatuses resolves the node's own traces the way its heartbeat does.
func ownStatuses(t *testing.T, n *testNode) map[manifest.Hash]manifest.Status {
	t.Helper()
	in, err := signal.Load(n.dir, n.name, n.url)
	if err != nil {
		t.Fatal(err)
	}
	out := map[manifest.Hash]manifest.Status{}
	for _, tr := range signal.Compute(in).Traces {
		if strings.HasPrefix(tr.URL, n.url) {
			out[tr.Hash] = tr.Status
		}
	}
	return out
}
