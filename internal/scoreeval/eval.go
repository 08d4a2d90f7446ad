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
	Label   Label
	Scores  validation.Scores
	Total   int
	Passed  bool
	Holdout bool
	Words   int    // words of the body, prose and code
	Err     string // the scorer failed on it; counted as a fail
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
	r := &Report{Scorer: s.Name(), Now: now}
	for _, l := range labels {
		t, ok := c.ByHash(l.SHA256)
		if !ok {
			return nil, fmt.Errorf("evaluate: %s: no trace with hash %s in the corpus", l.Key(), l.SHA256)
		}
		o := Outcome{Label: l, Holdout: Holdout(l), Words: score.BodyWords(body(t))}
		res, err := s.Score(ctx, c.Input(t, now))
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			o.Err = err.Error()
		default:
			o.Scores, o.Total = res.Scores, res.Scores.Total()
			o.Passed = o.Total >= validation.PassThreshold
		}
		r.Outcomes = append(r.Outcomes, o)
	}
	return r, nil
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

// Part selects outcomes: Tune, Held or All.
type Part int

// Parts of the set.
const (
	All Part = iota
	Tune
	Held
)

func (p Part) String() string {
	return [...]string{"all", "tuning", "held out"}[p]
}

func (p Part) has(o Outcome) bool {
	return p == All || (p == Held) == o.Holdout
}

// Metrics counts the outcomes of one part.
func (r *Report) Metrics(p Part) Metrics {
	var m Metrics
	for _, o := range r.Outcomes {
		if !p.has(o) {
			continue
		}
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

// WriteText writes the report for a person: the confusion table and rates
// per part, then every disagreement with its scores.
func (r *Report) WriteText(w io.Writer, parts ...Part) {
	fmt.Fprintf(w, "scorer %s, %d labelled traces, scored as of %s\n\n", r.Scorer, len(r.Outcomes), r.Now.UTC().Format(time.DateOnly))
	fmt.Fprintln(w, "| part | traces | TP | FN | FP | TN | exempt | recall | precision | negatives failed | thin passed | errors |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range parts {
		m := r.Metrics(p)
		n := m.TP + m.FN + m.FP + m.TN + m.Exempt
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %.0f %% | %.0f %% | %.0f %% | %d | %d |\n", p, n,
			m.TP, m.FN, m.FP, m.TN, m.Exempt, 100*m.Recall(), 100*m.Precision(), 100*m.NegativesFailed(), m.ThinPassed, m.Errors)
	}
	fmt.Fprintln(w)
	wrong := r.disagreements(parts)
	if len(wrong) == 0 {
		fmt.Fprintln(w, "no disagreement")
		return
	}
	fmt.Fprintln(w, "disagreements (label, total, scores su un sp ac st fr):")
	for _, o := range wrong {
		fmt.Fprintf(w, "  %-4s %2d %v  %s/%d %s%s\n", o.Label.Label, o.Total, o.Scores, o.Label.Agent, o.Label.Seq, o.Label.Reason, errNote(o))
	}
}

// disagreements lists the wrong outcomes of the parts asked for.
func (r *Report) disagreements(parts []Part) []Outcome {
	var out []Outcome
	for _, o := range r.Outcomes {
		in := false
		for _, p := range parts {
			in = in || p.has(o)
		}
		if in && !o.Correct() && o.Label.Exempt == "" {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label.Key() < out[j].Label.Key() })
	return out
}

func errNote(o Outcome) string {
	if o.Err == "" {
		return ""
	}
	return " (error: " + strings.Join(strings.Fields(o.Err), " ") + ")"
}
