package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/queue"
)

// adasTraces are the three traces ada publishes in most tests: two that
// the heuristic passes and one it fails.
var adasTraces = []string{"001-retry-ladder.md", "002-gap-cursor.md", "003-tiny.md"}

func TestStandingGatesValidation(t *testing.T) {
	tests := []struct {
		name       string
		standing   string
		validates  bool
		waitReason string // substring of the summary's reason when it waits
	}{
		{name: "default gate of docs/protocol.md §8.4 waits for 10 own validated traces", standing: gated,
			waitReason: "no standing yet: 0 of 10 own traces validated by others"},
		{name: "a configured gate names its own threshold", standing: "standing:\n  min_validated_traces: 3\n",
			waitReason: "0 of 3"},
		{name: "bootstrap lets a founding node validate at once", standing: founding, validates: true},
		{name: "a gate of 0 is no gate", standing: noGate, validates: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMesh(t, "ada", "bob")
			m.configure("ada", gated)
			m.configure("bob", tt.standing)
			m.node("ada").addTraces(t, "ada", adasTraces...)
			m.beat("ada")

			sum := m.beat("bob")

			vals := readValidations(t, m.node("bob").dir)
			if tt.validates {
				if len(vals) != 3 || sum.ValidationsPublished != 3 || sum.Waiting != 0 {
					t.Errorf("validations on disk %d, published %d, waiting %d; want 3, 3, 0", len(vals), sum.ValidationsPublished, sum.Waiting)
				}
				return
			}
			if len(vals) != 0 || sum.ValidationsPublished != 0 {
				t.Errorf("without standing: %d validations written, %d published; want none", len(vals), sum.ValidationsPublished)
			}
			if sum.Waiting != 3 || !strings.Contains(sum.WaitingReason, tt.waitReason) {
				t.Errorf("waiting %d (%q); want 3 waiting, reason containing %q", sum.Waiting, sum.WaitingReason, tt.waitReason)
			}
			for _, it := range queueItems(t, m.node("bob").dir) {
				if it.Status != queue.StatusQueued {
					t.Errorf("queue item %s is %s; without standing it must stay queued", it.ID, it.Status)
				}
			}
		})
	}
}

func TestStandingEarnedByOwnValidatedTracesStartsValidation(t *testing.T) {
	m := newMesh(t, "ada", "bob", "cyd")
	m.configure("ada", "standing:\n  min_validated_traces: 2\n")
	m.configure("bob", founding)
	m.configure("cyd", gated)
	ada := m.node("ada")
	ada.addTraces(t, "ada", adasTraces...)
	m.node("bob").addTraces(t, "bob", "001-bob-intro.md")
	m.node("cyd").addTraces(t, "cyd", "001-scoring-rubric.md")

	m.round() // ada publishes and waits; bob validates ada's traces
	if n := len(readValidations(t, ada.dir)); n != 0 {
		t.Fatalf("ada validated %d traces before it had standing", n)
	}
	sum := m.beat("ada")
	if sum.Waiting != 0 {
		t.Fatalf("ada still waits after bob validated two of its traces: %d waiting (%s)", sum.Waiting, sum.WaitingReason)
	}
	vals := readValidations(t, ada.dir)
	if len(vals) != 2 {
		t.Errorf("ada, with standing, validated %d traces; want 2 (bob's and cyd's)", len(vals))
	}
}

func queueItems(t testing.TB, dir string) []queue.Item {
	t.Helper()
	items, err := queue.Open(filepath.Join(dir, filepath.FromSlash(heartbeat.QueueFile))).List()
	if err != nil {
		t.Fatal(err)
	}
	return items
}
