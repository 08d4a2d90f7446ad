package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// TestRunComparesAScorerCommandOnTheSameSet runs the evaluation against a
// scoring command that passes everything: every positive passes, every
// negative too, and the report says so.
func TestRunComparesAScorerCommandOnTheSameSet(t *testing.T) {
	dir := corpustest.Dir(t)
	cmd := filepath.Join(t.TempDir(), "pass-all.sh")
	script := "#!/bin/sh\ncat >/dev/null\necho '{\"scores\": {\"substance\": 3, \"uniqueness\": 3, \"specificity\": 3, \"actionability\": 3, \"structure\": 3, \"freshness\": 3}, \"notes\": \"all 3\"}'\n"
	if err := os.WriteFile(cmd, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(context.Background(), []string{"--corpus", dir, "--", cmd}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scorer command, 64 labelled traces", "| all | 64 | 27 | 0 | 36 | 0 | 1 | 100 % |", "thin passed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunRefusesAMissingCorpus(t *testing.T) {
	err := run(context.Background(), []string{"--corpus", t.TempDir()}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "--corpus") {
		t.Errorf("error %v, want one that says to pass --corpus", err)
	}
}

// TestRunCrossValidatesTheHeuristic runs the default report: the
// heuristic's cross-validation, with the knobs chosen per fold and the
// pooled table.
func TestRunCrossValidatesTheHeuristic(t *testing.T) {
	dir := corpustest.Dir(t)
	var out strings.Builder
	if err := run(context.Background(), []string{"--corpus", dir, "--folds", "4"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4-fold cross-validation", "| 4 | 16 | near-copy distance=", "chosen on all labels: ", "| all folds | 64 |", "| positives failed |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	err := run(context.Background(), []string{"--corpus", dir, "--folds", "1"}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "1 folds") {
		t.Errorf("error %v, want one refusing 1 fold", err)
	}
}
