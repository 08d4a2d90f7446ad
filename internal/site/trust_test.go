package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestGraphDrawsVerdictsBetweenPeers: bob records in one of his traces
// that ada's trace 2 is valid; the site's graph, which draws the trust
// graph SIGNAL computed, shows bob→ada though neither published a
// validation file and this node validated neither. bob's validation file
// with a score of 7 counts for nothing and is not listed.
func TestGraphDrawsVerdictsBetweenPeers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	if err := os.CopyFS(dir, os.DirFS("testdata/node")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, node.LedgerFile)
	l, err := ledger.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	l.AddTrace(&ledger.Trace{Agent: "bob", AgentURL: "https://bob.example.org/mesh/", Seq: 9, Hash: manifest.Hash("sha256:" + strings.Repeat("b", 64)),
		File: "traces/009-validation.md", Type: "validation", Verified: true,
		Verdicts: []ledger.Verdict{{Agent: "ada", Seq: 2, Result: "valid"}}})
	bad := ledger.Validation{Validator: "bob", ValidatorURL: "https://bob.example.org/mesh/", SourceHash: manifest.Hash("sha256:" + strings.Repeat("c", 64)),
		TraceHash: "sha256:4f2a9c1b7d3e5a6b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d", Result: "pass", HasScores: true,
		Scores: [6]int{7, 3, 3, 3, 3, 3}, Total: 22}
	l.AddValidation(&bad)
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	n := loadFixture(t, dir)
	g := buildGraph("x", n.Agent, n.Trust)
	found := false
	for _, e := range g.Edges {
		found = found || e.Title == "bob validated ada 1 times"
	}
	if !found {
		t.Errorf("no edge bob→ada in the graph: trust %+v, edges %+v", n.Trust, g.Edges)
	}
	for _, v := range n.Votes {
		if v.Total == 22 && v.Validator == "bob" {
			t.Errorf("bob's validation with a score of 7 is listed as a vote: %+v", v)
		}
	}
}
