package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// runExplain scores one trace file with the heuristic, as the heartbeat
// would score it now, and prints every dimension with its reasons, the
// total and the verdict. Uniqueness compares it with the traces in the
// node's ledger, when --dir holds one.
func runExplain(ctx context.Context, e *env, o scoreOptions) error {
	raw, err := os.ReadFile(o.explain)
	if err != nil {
		return usagef("give the path of a trace's .md file", "score --explain: %v", err)
	}
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	known, err := ledgerKnown(filepath.Join(o.dir, filepath.FromSlash(node.LedgerFile)))
	if err != nil {
		return fmt.Errorf("score --explain: %w", err)
	}
	in := score.Input{Record: ledger.Trace{Hash: manifest.HashBytes(raw)}, Raw: raw, Now: clock(), Known: known}
	if t, err := trace.Parse(raw); err == nil {
		in.Trace, in.Record.Agent, in.Record.Type = t, t.Agent, t.Type
	}
	res, err := score.Heuristic{}.Score(ctx, in)
	if err != nil {
		return fmt.Errorf("score --explain: %w", err)
	}
	printExplanation(e.stdout, o.explain, in, res, len(known))
	return nil
}

// ledgerKnown reads the fingerprints the heartbeat recorded; a node with
// no ledger yet, or no node at all, knows nothing.
func ledgerKnown(path string) ([]score.Known, error) {
	l, err := ledger.Load(path)
	if err != nil {
		return nil, err
	}
	return score.KnownOf(l), nil
}

func printExplanation(w io.Writer, file string, in score.Input, res *score.Result, known int) {
	title := "(untitled)"
	if in.Trace != nil && in.Trace.Title != "" {
		title = in.Trace.Title
	}
	fmt.Fprintf(w, "%s: %s\n%s, scored by the heuristic as of %s, against %d known traces\n\n",
		file, title, in.Record.Hash, in.Now.UTC().Format("2006-01-02T15:04:05Z"), known)
	for i, d := range validation.Dimensions {
		fmt.Fprintf(w, "%-14s %d/%d\n", d, res.Scores[i], validation.MaxScore)
		for _, r := range res.Reasons[i] {
			fmt.Fprintf(w, "    %s\n", r)
		}
	}
	total := res.Scores.Total()
	fmt.Fprintf(w, "\ntotal %d/%d: %s (%s at %d or more)\n", total, validation.MaxTotal,
		strings.ToUpper(validation.ResultFor(total)), validation.ResultPass, validation.PassThreshold)
}
