// Command scoreeval runs the scoring evaluation of docs/scoring.md against
// the heuristic or any scoring command, so an operator can compare scorers
// on the same labelled traces of the real mesh before switching.
//
//	go run ./bench/scoreeval                        # the heuristic, cross-validated
//	go run ./bench/scoreeval --plain                # the heuristic with its defaults
//	go run ./bench/scoreeval -- python3 docs/scorer/llm-scorer.py
//	go run ./bench/scoreeval --all                  # score distribution over the snapshot
//
// The heuristic is measured by k-fold cross-validation (--folds, default 8):
// its calibration knobs are chosen by grid search on the other folds and
// each fold is scored with them. A scoring command has no knobs here, so it
// is scored once on every label. Arguments after -- are the scorer
// command, run as scorer_command is (no shell): the request JSON on stdin,
// the response JSON on stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/scoreeval"
	"github.com/meshnode/meshnode/internal/validation"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scoreeval:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("scoreeval", flag.ContinueOnError)
	corpus := fs.String("corpus", filepath.Join("..", "shared", "corpus", "mycel-basecamp"), "the snapshot of the real mesh")
	now := fs.String("now", scoreeval.SnapshotTime.Format(time.RFC3339), "score as of this time")
	timeout := fs.Duration("timeout", score.DefaultCommandTimeout, "per-trace limit for a scoring command")
	all := fs.Bool("all", false, "score every trace of the snapshot and print the distribution of totals")
	folds := fs.Int("folds", 8, "folds of the heuristic's cross-validation")
	plain := fs.Bool("plain", false, "score the heuristic with its default knobs, without cross-validation")
	if err := fs.Parse(args); err != nil {
		return err
	}
	at, err := time.Parse(time.RFC3339, *now)
	if err != nil {
		return fmt.Errorf("--now: %w", err)
	}
	s, err := scorer(fs.Args(), *timeout)
	if err != nil {
		return err
	}
	c, err := scoreeval.LoadCorpus(*corpus)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root, or pass --corpus)", err)
	}
	if *all {
		return distribution(ctx, w, s, c, at)
	}
	labels, err := scoreeval.Labels()
	if err != nil {
		return err
	}
	if len(fs.Args()) == 0 && !*plain {
		cv, err := scoreeval.CrossValidate(ctx, c, labels, at, scoreeval.DefaultGrid, *folds)
		if err != nil {
			return err
		}
		cv.WriteText(w)
		return nil
	}
	r, err := scoreeval.Evaluate(ctx, s, c, labels, at)
	if err != nil {
		return err
	}
	r.WriteText(w)
	return nil
}

func scorer(command []string, timeout time.Duration) (score.Scorer, error) {
	if len(command) == 0 {
		return score.Heuristic{}, nil
	}
	return score.New(score.KindCommand, command, timeout)
}

// distribution scores every trace and prints how many got each total.
func distribution(ctx context.Context, w io.Writer, s score.Scorer, c *scoreeval.Corpus, at time.Time) error {
	var counts [validation.MaxTotal + 1]int
	failed := 0
	for _, t := range c.Traces {
		res, err := s.Score(ctx, c.Input(t, at))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if errors.Is(err, score.ErrNeedsPerson) {
				return err
			}
			failed++
			continue
		}
		counts[res.Scores.Total()]++
	}
	fmt.Fprintf(w, "scorer %s, %d traces of the snapshot, scored as of %s\n\n", s.Name(), len(c.Traces), at.UTC().Format(time.DateOnly))
	fmt.Fprintln(w, "| total | traces | |")
	fmt.Fprintln(w, "|---|---|---|")
	for total, n := range counts {
		if n > 0 {
			fmt.Fprintf(w, "| %d | %d | %s |\n", total, n, bar(n))
		}
	}
	passed := 0
	for total := validation.PassThreshold; total <= validation.MaxTotal; total++ {
		passed += counts[total]
	}
	fmt.Fprintf(w, "\n%d pass (%d or more), %d fail, %d errors\n", passed, validation.PassThreshold, len(c.Traces)-passed-failed, failed)
	return nil
}

func bar(n int) string {
	b := make([]byte, 0, n/4+1)
	for i := 0; i < (n+3)/4; i++ {
		b = append(b, '#')
	}
	return string(b)
}
