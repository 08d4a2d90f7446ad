package scoreeval

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/validation"
)

// ThinWords is the body length under which a trace is a thin note that
// must never pass, whatever else it holds (docs/scoring.md).
const ThinWords = 40

// Outcome is how a scorer judged one labelled trace.
type Outcome struct {
	Label  Label
	Scores validation.Scores
	Total  int
	Passed bool
	Fold   int    // the fold it was held out in, under cross-validation
	Words  int    // words of the body, prose and code
	Err    string // the scorer failed on it; counted as a fail
}

// Correct reports whether the scorer agreed with the label.
func (o Outcome) Correct() bool { return o.Passed == (o.Label.Label == Pass) }

// Report is a scorer's result on the evaluation set.
type Report struct {
	Scorer   string
	Now      time.Time
	Outcomes []Outcome
}

// Evaluate scores every labelled trace with s, as of now.
func Evaluate(ctx context.Context, s score.Scorer, c *Corpus, labels []Label, now time.Time) (*Report, error) {
	cases, err := prepare(c, labels, now)
	if err != nil {
		return nil, err
	}
	r := &Report{Scorer: s.Name(), Now: now}
	for _, k := range cases {
		o, err := k.score(ctx, s)
		if err != nil {
			return nil, err
		}
		r.Outcomes = append(r.Outcomes, o)
	}
	return r, nil
}

// labelled is a label with what a scorer sees of its trace.
type labelled struct {
	label Label
	in    score.Input
	words int
}

// prepare finds every label's trace and builds its input as of now.
func prepare(c *Corpus, labels []Label, now time.Time) ([]labelled, error) {
	out := make([]labelled, 0, len(labels))
	for _, l := range labels {
		t, ok := c.ByHash(l.SHA256)
		if !ok {
			return nil, fmt.Errorf("evaluate: %s: no trace with hash %s in the corpus", l.Key(), l.SHA256)
		}
		out = append(out, labelled{label: l, in: c.Input(t, now), words: score.BodyWords(body(t))})
	}
	return out, nil
}

// score judges one labelled trace; a scorer's error is recorded as a fail.
func (k labelled) score(ctx context.Context, s score.Scorer) (Outcome, error) {
	res, err := s.Score(ctx, k.in)
	switch {
	case ctx.Err() != nil:
		return Outcome{}, ctx.Err()
	case err != nil:
		return Outcome{Label: k.label, Words: k.words, Err: err.Error()}, nil
	}
	return k.outcome(res), nil
}

// outcome is the label's outcome under a scorer's result.
func (k labelled) outcome(res *score.Result) Outcome {
	total := res.Scores.Total()
	return Outcome{Label: k.label, Words: k.words, Scores: res.Scores, Total: total, Passed: total >= validation.PassThreshold}
}

// Metrics are the counts and rates of one part of the set.
type Metrics struct {
	TP, FN, FP, TN int // pass labels passed / failed; fail labels passed / failed
	Exempt         int // positives left out of recall (thin pointers)
	ThinPassed     int // thin notes (under ThinWords) that passed
	Errors         int
}

// Recall is the share of positives that passed.
func (m Metrics) Recall() float64 { return ratio(m.TP, m.TP+m.FN) }

// Precision is the share of passes that were positives.
func (m Metrics) Precision() float64 { return ratio(m.TP, m.TP+m.FP) }

// NegativesFailed is the share of labelled negatives that failed.
func (m Metrics) NegativesFailed() float64 { return ratio(m.TN, m.TN+m.FP) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Metrics counts the outcomes.
func (r *Report) Metrics() Metrics { return count(r.Outcomes) }

func count(outcomes []Outcome) Metrics {
	var m Metrics
	for _, o := range outcomes {
		if o.Err != "" {
			m.Errors++
		}
		if o.Passed && o.Words < ThinWords {
			m.ThinPassed++
		}
		switch {
		case o.Label.Label == Pass && o.Label.Exempt != "":
			m.Exempt++
		case o.Label.Label == Pass && o.Passed:
			m.TP++
		case o.Label.Label == Pass:
			m.FN++
		case o.Passed:
			m.FP++
		default:
			m.TN++
		}
	}
	return m
}

// WriteText writes the report for a person: the confusion table and rates,
// then every disagreement with its scores.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "scorer %s, %d labelled traces, scored as of %s\n\n", r.Scorer, len(r.Outcomes), r.Now.UTC().Format(time.DateOnly))
	writeHeader(w)
	writeRow(w, "all", r.Metrics())
	fmt.Fprintln(w)
	writeDisagreements(w, r.Outcomes)
}

func writeHeader(w io.Writer) {
	fmt.Fprintln(w, "| part | traces | TP | FN | FP | TN | exempt | recall | precision | negatives failed | thin passed | errors |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
}

func writeRow(w io.Writer, part string, m Metrics) {
	n := m.TP + m.FN + m.FP + m.TN + m.Exempt
	fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %.0f %% | %.0f %% | %.0f %% | %d | %d |\n", part, n,
		m.TP, m.FN, m.FP, m.TN, m.Exempt, 100*m.Recall(), 100*m.Precision(), 100*m.NegativesFailed(), m.ThinPassed, m.Errors)
}

// writeDisagreements lists the wrong outcomes with their scores.
func writeDisagreements(w io.Writer, outcomes []Outcome) {
	var wrong []Outcome
	for _, o := range outcomes {
		if !o.Correct() && o.Label.Exempt == "" {
			wrong = append(wrong, o)
		}
	}
	if len(wrong) == 0 {
		fmt.Fprintln(w, "no disagreement")
		return
	}
	sort.SliceStable(wrong, func(i, j int) bool { return wrong[i].Label.Key() < wrong[j].Label.Key() })
	fmt.Fprintln(w, "disagreements (label, total, scores su un sp ac st fr):")
	for _, o := range wrong {
		fmt.Fprintf(w, "  %-4s %2d %v  %s/%d %s%s\n", o.Label.Label, o.Total, o.Scores, o.Label.Agent, o.Label.Seq, o.Label.Reason, errNote(o))
	}
}

func errNote(o Outcome) string {
	if o.Err == "" {
		return ""
	}
	return " (error: " + strings.Join(strings.Fields(o.Err), " ") + ")"
}
