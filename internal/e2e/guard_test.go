package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// publishByHand writes a peer's MANIFEST.md listing files (path → bytes
// served) under the hashes given (path → hash; the bytes' own hash when
// absent), as a node that is not meshnode would.
func publishByHand(t testing.TB, n *testNode, agent string, files map[string]string, claimed map[string]manifest.Hash) {
	t.Helper()
	m := &manifest.Manifest{Agent: agent, URL: n.url, Updated: start}
	for _, f := range sortedKeys(files) {
		writeFile(t, n.dir, f, files[f])
		h := claimed[f]
		if h == "" {
			h = manifest.HashBytes([]byte(files[f]))
		}
		m.Sequence++
		m.Entries = append(m.Entries, manifest.Entry{Seq: m.Sequence, Hash: h, File: f, Type: "knowledge", Status: "pending", Submitted: start})
	}
	writeFile(t, n.dir, node.ManifestFile, string(m.Format()))
}

func readTestdata(t testing.TB, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestNeverValidatesOwnTraces(t *testing.T) {
	bobsTrace := readTestdata(t, "traces/bob/001-bob-intro.md")
	tests := []struct {
		name  string
		setup func(t *testing.T, m *testMesh)
	}{
		{name: "our own URL listed in AGENTS.md under another name", setup: func(t *testing.T, m *testMesh) {
			bob := m.node("bob")
			writeFile(t, bob.dir, node.AgentsFile, "# name | trace_url | joined\nbobby | "+bob.url+" | 2026-02-01\n")
		}},
		{name: "a peer republishing our trace's exact bytes as its own", setup: func(t *testing.T, m *testMesh) {
			publishByHand(t, m.node("mimic"), "mimic", map[string]string{"traces/copy.md": bobsTrace}, nil)
		}},
		{name: "a peer listed under our own name", setup: func(t *testing.T, m *testMesh) {
			mimic, bob := m.node("mimic"), m.node("bob")
			writeFile(t, bob.dir, node.AgentsFile, "# name | trace_url | joined\nBob | "+mimic.url+" | 2026-02-01\n")
			publishByHand(t, mimic, "Bob", map[string]string{"traces/rubric.md": readTestdata(t, "traces/cyd/001-scoring-rubric.md")}, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMesh(t, "bob", "mimic")
			m.configure("bob", founding)
			bob := m.node("bob")
			bob.addTraces(t, "bob", "001-bob-intro.md")
			m.beat("bob") // publishes bob's trace
			tt.setup(t, m)

			m.beat("bob")

			own := manifest.HashBytes([]byte(bobsTrace))
			for hash, v := range readValidations(t, bob.dir) {
				if hash == own || strings.HasPrefix(v.TraceURL, bob.url) {
					t.Errorf("bob validated its own trace: %s %s", v.TraceURL, hash)
				}
				if tt.name == "a peer listed under our own name" {
					t.Errorf("bob validated a trace of a peer listed under its own name: %s", v.TraceURL)
				}
			}
		})
	}
}

func TestNeverValidatesAHashThatDidNotVerify(t *testing.T) {
	honest := readTestdata(t, "traces/ada/001-retry-ladder.md")
	tampered := strings.Replace(honest, "31 of 40", "39 of 40", 1)
	if tampered == honest {
		t.Fatal("fixture: the tampering changed nothing")
	}
	claimed, served := manifest.HashBytes([]byte(honest)), manifest.HashBytes([]byte(tampered))

	t.Run("bytes served do not hash to the MANIFEST's hash", func(t *testing.T) {
		m := newMesh(t, "ada", "bob")
		m.configure("bob", founding)
		publishByHand(t, m.node("ada"), "ada", map[string]string{"traces/001-retry-ladder.md": tampered},
			map[string]manifest.Hash{"traces/001-retry-ladder.md": claimed})

		sum := m.beat("bob")

		if n := len(readValidations(t, m.node("bob").dir)); n != 0 {
			t.Errorf("bob published %d validations of bytes that did not verify", n)
		}
		if len(sum.HashMismatches) != 1 || sum.HashMismatches[0].Claimed != claimed || sum.HashMismatches[0].Served != served {
			t.Errorf("hash mismatches %+v; want the one of seq 1", sum.HashMismatches)
		}
		if sum.DisputesPublished != 1 {
			t.Errorf("disputes published %d; want 1", sum.DisputesPublished)
		}
		if items := queueItems(t, m.node("bob").dir); len(items) != 0 {
			t.Errorf("a trace that did not verify was queued: %+v", items)
		}
	})
	t.Run("bytes changed after the trace was queued", func(t *testing.T) {
		m := newMesh(t, "ada", "bob")
		m.configure("bob", gated) // queues, cannot validate yet
		ada, bob := m.node("ada"), m.node("bob")
		publishByHand(t, ada, "ada", map[string]string{"traces/001-retry-ladder.md": honest}, nil)
		m.beat("bob")
		writeFile(t, ada.dir, "traces/001-retry-ladder.md", tampered) // MANIFEST unchanged
		m.configure("bob", founding)

		m.beat("bob")

		if n := len(readValidations(t, bob.dir)); n != 0 {
			t.Errorf("bob published %d validations of a trace whose bytes changed since it was queued", n)
		}
		items := queueItems(t, bob.dir)
		if len(items) != 1 || items[0].Status != queue.StatusFailed || !strings.Contains(items[0].Reason, "hash") {
			t.Errorf("queue %+v; want the item failed with a reason naming the hash", items)
		}
	})
}

func hashOf(s string) manifest.Hash { return manifest.HashBytes([]byte(s)) }
