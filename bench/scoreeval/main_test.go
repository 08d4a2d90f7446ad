package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/scoreeval"
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
	ls, err := scoreeval.Labels()
	if err != nil {
		t.Fatal(err)
	}
	pos, neg, exempt := 0, 0, 0
	for _, l := range ls {
		switch {
		case l.Label == scoreeval.Pass && l.Exempt != "":
			exempt++
		case l.Label == scoreeval.Pass:
			pos++
		default:
			neg++
		}
	}
	for _, want := range []string{
		fmt.Sprintf("scorer command, %d labelled traces", len(ls)),
		fmt.Sprintf("| all | %d | %d | 0 | %d | 0 | %d | 100 %% |", len(ls), pos, neg, exempt),
		"thin passed",
	} {
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
	ls, err := scoreeval.Labels()
	if err != nil {
		t.Fatal(err)
	}
	inLast := 0
	for _, f := range scoreeval.Folds(ls, 4) {
		if f == 3 {
			inLast++
		}
	}
	for _, want := range []string{
		"4-fold cross-validation", fmt.Sprintf("| 4 | %d | near-copy distance=", inLast), "chosen on all labels: ",
		fmt.Sprintf("| all folds | %d |", len(ls)), "| positives failed |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	err = run(context.Background(), []string{"--corpus", dir, "--folds", "1"}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "1 folds") {
		t.Errorf("error %v, want one refusing 1 fold", err)
	}
}
