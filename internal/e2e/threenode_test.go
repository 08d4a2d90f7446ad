package e2e

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/validation"
)

// maxRounds bounds how long a three-node mesh may take to settle: publish,
// validate, see the validations, see the new statuses, and one quiet round.
const maxRounds = 6

// threeNodes is the mesh of issue 3: ada and cyd publish traces and have no
// standing; bob is a founding node that validates.
func threeNodes(t *testing.T) *testMesh {
	t.Helper()
	m := newMesh(t, "ada", "bob", "cyd")
	m.configure("ada", gated)
	m.configure("bob", founding)
	m.configure("cyd", gated)
	m.node("ada").addTraces(t, "ada", "001-retry-ladder.md", "002-gap-cursor.md", "003-tiny.md")
	m.node("bob").addTraces(t, "bob", "001-bob-intro.md")
	m.node("cyd").addTraces(t, "cyd", "001-scoring-rubric.md", "002-thin.md")
	return m
}

func TestThreeNodesPublishValidateAndShowStatuses(t *testing.T) {
	m := threeNodes(t)
	m.settle(maxRounds)
	bob := m.node("bob")
	vals := readValidations(t, bob.dir)

	for _, author := range []string{"ada", "cyd"} {
		t.Run(author+"'s MANIFEST shows bob's verdicts", func(t *testing.T) {
			n := m.node(author)
			resolved := 0
			for _, e := range readManifest(t, n.dir).Entries {
				if path.Dir(e.File) != "traces" {
					continue
				}
				v, ok := vals[e.Hash]
				if !ok {
					t.Errorf("%s (%s): bob published no validation of it", e.File, e.Hash)
					continue
				}
				if v.TraceURL != n.url+e.File {
					t.Errorf("%s: bob's validation names trace_url %q, want %q", e.File, v.TraceURL, n.url+e.File)
				}
				if want := statusFor(v.Result); e.Status != want {
					t.Errorf("%s: status %q, want %q (bob says %s %d/30)", e.File, e.Status, want, v.Result, v.Total)
				}
				resolved++
			}
			if resolved == 0 {
				t.Fatalf("no trace of %s in its MANIFEST", author)
			}
		})
	}
	t.Run("bob's MANIFEST lists each validation once", func(t *testing.T) {
		listed := map[string]int{}
		for _, e := range readManifest(t, bob.dir).Entries {
			if path.Dir(e.File) == node.ValidationsDir {
				listed[e.File]++
			}
		}
		if len(listed) != len(vals) || len(vals) != 5 {
			t.Errorf("%d validation files, %d listed; want 5 (3 of ada's traces, 2 of cyd's)", len(vals), len(listed))
		}
		for f, c := range listed {
			if c != 1 {
				t.Errorf("%s listed %d times", f, c)
			}
		}
	})
	t.Run("the verdicts are not all alike", func(t *testing.T) {
		// A mesh where every trace passes (or fails) would not tell a
		// status copied from the wrong validation from the right one.
		results := map[string]bool{}
		for _, v := range vals {
			results[v.Result] = true
		}
		if !results[validation.ResultPass] || !results[validation.ResultFail] {
			t.Errorf("bob's verdicts %v: the fixtures must give at least one pass and one fail", results)
		}
	})
}

func TestThreeNodesAgreeOnSignal(t *testing.T) {
	m := threeNodes(t)
	m.settle(maxRounds)
	views := map[string]string{}
	for _, n := range m.nodes {
		views[n.name] = signalJSON(t, n)
	}
	for _, n := range m.nodes[1:] {
		if views[n.name] != views[m.nodes[0].name] {
			t.Errorf("%s computes a different SIGNAL than %s:\n%s\n--- %s:\n%s",
				n.name, m.nodes[0].name, views[n.name], m.nodes[0].name, views[m.nodes[0].name])
		}
	}
	if !strings.Contains(views["bob"], `"validations_authored": 5`) {
		t.Errorf("bob's five validations are not counted:\n%s", views["bob"])
	}
}

// signalJSON is what `meshnode signal --json` prints for the node: every
// agent's SIGNAL and tier and every trace's resolution.
func signalJSON(t *testing.T, n *testNode) string {
	t.Helper()
	in, err := signal.Load(n.dir, n.name, n.url)
	if err != nil {
		t.Fatalf("%s: signal.Load: %v", n.name, err)
	}
	rep := signal.Compute(in)
	data, err := json.MarshalIndent(struct {
		Agents []signal.Agent       `json:"agents"`
		Traces []signal.TraceResult `json:"traces"`
	}{rep.Agents, rep.Traces}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// readValidations parses every validation file of a node, by trace hash.
func readValidations(t testing.TB, dir string) map[manifest.Hash]*validation.Validation {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, node.ValidationsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[manifest.Hash]*validation.Validation{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := validation.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		if _, dup := out[v.TraceHash]; dup {
			t.Errorf("two validations of %s", v.TraceHash)
		}
		if want := validation.FileName(v.TraceHash); filepath.Base(f) != want {
			t.Errorf("%s validates %s, so it should be named %s", filepath.Base(f), v.TraceHash, want)
		}
		out[v.TraceHash] = v
	}
	return out
}

// statusFor is the status a trace with one validation resolves to.
func statusFor(result string) manifest.Status {
	if result == validation.ResultPass {
		return manifest.StatusValidated
	}
	return manifest.StatusFailed
}
