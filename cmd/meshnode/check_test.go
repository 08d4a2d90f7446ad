package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/publish"
)

// checkCmdNode makes a node with one published trace and mesh.yaml; it
// founded its mesh, so it has standing and only the files under test matter.
func checkCmdNode(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeCheckNodeFile(t, dir, "mesh.yaml", "agent: ada\nurl: https://ada.example.org/mesh/\n")
	writeCheckNodeFile(t, dir, "FOUNDERS.md", "ada | https://ada.example.org/mesh/\n")
	writeCheckNodeFile(t, dir, "traces/first.md", "---\ntitle: First\n---\n\n# First\n")
	_, err := publish.Publish(publish.Options{Dir: dir, Agent: "ada", URL: "https://ada.example.org/mesh/",
		Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeCheckNodeFile(t testing.TB, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runPublishingCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = run(context.Background(), args, &o, &e)
	return o.String(), e.String(), err
}

func TestCheckCommandPassesCleanNode(t *testing.T) {
	dir := checkCmdNode(t)
	out, errOut, err := runPublishingCLI(t, "check", "--dir", dir)
	if err != nil || out != "" {
		t.Errorf("check on a clean node: err %v, stdout %q", err, out)
	}
	if !strings.Contains(errOut, "no problems found") {
		t.Errorf("stderr %q does not say the node is clean", errOut)
	}
}

func TestCheckCommandPrintsProblemsAndExits3(t *testing.T) {
	unknown := manifest.HashBytes([]byte("never fetched\n"))
	val := "validations/val-" + unknown.Hex(12) + ".md"
	tests := []struct {
		name     string
		actions  string
		wantLine string // what stdout must hold, DIR standing for the node
	}{
		{"plain output", "", "DIR/traces/first.md:1: published file was edited"},
		{"GitHub Actions annotation", "true", "::error file=DIR/" + val + ",line=6::trace_hash " + string(unknown) + " is not in mesh-state/ledger.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GITHUB_ACTIONS", tt.actions)
			dir := checkCmdNode(t)
			writeCheckNodeFile(t, dir, "traces/first.md", "---\ntitle: First, edited\n---\n")
			writeCheckNodeFile(t, dir, val, "# VALIDATION\n\nvalidator: ada\nvalidator_url: https://ada.example.org/mesh/\n"+
				"trace_url: https://bob.example.org/t.md\ntrace_hash: "+string(unknown)+"\nresult: pass\ntotal_score: 18\n\nscores:\n"+
				"  substance: 3\n  uniqueness: 3\n  specificity: 3\n  actionability: 3\n  structure: 3\n  freshness: 3\n")
			out, errOut, err := runPublishingCLI(t, "check", "--dir", dir, filepath.Join(dir, val))
			var pf *problemsFound
			if !errors.As(err, &pf) || exitCode(err, &bytes.Buffer{}) != exitProblem {
				t.Fatalf("err = %v, want problemsFound (exit 3); stderr %q", err, errOut)
			}
			want := strings.ReplaceAll(tt.wantLine, "DIR", filepath.ToSlash(dir))
			if !strings.Contains(out, want) {
				t.Errorf("stdout lacks %q:\n%s", want, out)
			}
			if n := strings.Count(out, dir+"/"); pf.n != 2 || (tt.actions == "" && n != 2) || (tt.actions == "true" && n != 4) {
				t.Errorf("%d problems, %d lines naming the node; stdout:\n%s", pf.n, n, out)
			}
		})
	}
}

func TestCheckCommandNeedsConfig(t *testing.T) {
	_, _, err := runPublishingCLI(t, "check", "--dir", t.TempDir())
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(ue.hint, "meshnode init") {
		t.Errorf("err = %v, want a usage error pointing at meshnode init", err)
	}
}
