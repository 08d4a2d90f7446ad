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

// CV is the result of a cross-validation.
type CV struct {
	K      int
	Grid   Grid
	Chosen []Choice // per fold, chosen on the other folds
	Ties   []int    // per fold, how many combinations scored as well
	Folds  []Metrics
	// Pooled holds every label's outcome from the fold it was held out in,
	// scored with the knobs chosen without it.
	Pooled *Report
	// AllData is the choice on all the labels: what DefaultParams should be.
	AllData Choice
}

// CrossValidate runs stratified k-fold cross-validation of the heuristic:
// positives and negatives are each ordered by hash and dealt round the k
// folds, so every fold holds both and nobody chose which trace went where.
// On each fold, the grid's knobs are chosen on the other folds (Choose)
// and the fold is scored with them.
func CrossValidate(ctx context.Context, c *Corpus, labels []Label, now time.Time, g Grid, k int) (*CV, error) {
	if k < 2 || k > len(labels) {
		return nil, fmt.Errorf("cross-validate: %d folds for %d labels", k, len(labels))
	}
	cases, err := prepare(c, labels, now)
	if err != nil {
		return nil, err
	}
	choices := g.choices()
	params := make([]*score.Params, len(choices))
	for i, ch := range choices {
		p := g.Params(ch)
		params[i] = &p
	}
	table := make([][]Outcome, len(choices)) // table[choice][label]
	for _, lc := range cases {
		rs, err := score.ScoreEach(ctx, lc.in, params)
		if err != nil {
			return nil, fmt.Errorf("cross-validate: %s: %w", lc.label.Key(), err)
		}
		for i, res := range rs {
			table[i] = append(table[i], lc.outcome(res))
		}
	}
	folds := Folds(labels, k)
	cv := &CV{K: k, Grid: g, Pooled: &Report{Scorer: "heuristic, cross-validated", Now: now}}
	for f := range k {
		best, ties := choose(g, choices, table, func(i int) bool { return folds[i] != f })
		cv.Chosen, cv.Ties = append(cv.Chosen, choices[best]), append(cv.Ties, ties)
		var held []Outcome
		for i, o := range table[best] {
			if folds[i] == f {
				o.Fold = f
				held = append(held, o)
			}
		}
		cv.Folds = append(cv.Folds, count(held))
		cv.Pooled.Outcomes = append(cv.Pooled.Outcomes, held...)
	}
	sort.SliceStable(cv.Pooled.Outcomes, func(i, j int) bool {
		return cv.Pooled.Outcomes[i].Label.Key() < cv.Pooled.Outcomes[j].Label.Key()
	})
	all, _ := choose(g, choices, table, func(int) bool { return true })
	cv.AllData = choices[all]
	return cv, nil
}

// Folds deals the labels into k folds: positives, then negatives, each in
// hash order, round the folds, so each fold holds its share of both.
func Folds(labels []Label, k int) []int {
	idx := make([]int, len(labels))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		la, lb := labels[idx[a]], labels[idx[b]]
		if la.Label != lb.Label {
			return la.Label == Pass
		}
		return la.SHA256 < lb.SHA256
	})
	folds := make([]int, len(labels))
	for n, i := range idx {
		folds[i] = n % k
	}
	return folds
}

// choose returns the index of the best choice on the labels in(i), and
// how many choices scored as well: the highest balanced accuracy (recall
// plus the share of negatives failed) among the choices that pass no thin
// note; ties go to the choice nearest the knobs' middle values, then to the
// first.
func choose(g Grid, choices []Choice, table [][]Outcome, in func(i int) bool) (best, ties int) {
	best, bestScore, bestOff := -1, -1, 0
	for c, outcomes := range table {
		var sub []Outcome
		for i, o := range outcomes {
			if in(i) {
				sub = append(sub, o)
			}
		}
		m := count(sub)
		if m.ThinPassed > 0 {
			continue
		}
		// recall + negatives failed, over a common denominator
		s := m.TP*(m.TN+m.FP) + m.TN*(m.TP+m.FN)
		off := g.offCentre(choices[c])
		switch {
		case s > bestScore:
			best, bestScore, bestOff, ties = c, s, off, 1
		case s == bestScore:
			ties++
			if off < bestOff {
				best, bestOff = c, off
			}
		}
	}
	return max(best, 0), ties
}

// WriteText writes the cross-validation for a person: the knobs chosen
// and the result per fold, the pooled confusion table, the mean score per
// dimension by outcome, and every disagreement.
func (cv *CV) WriteText(w io.Writer) {
	r := cv.Pooled
	fmt.Fprintf(w, "heuristic, %d labelled traces, scored as of %s\n", len(r.Outcomes), r.Now.UTC().Format(time.DateOnly))
	fmt.Fprintf(w, "%d-fold cross-validation, stratified by label, folds dealt in hash order;\n", cv.K)
	fmt.Fprintf(w, "on each fold the knobs are chosen on the other folds from %d combinations\n\n", len(cv.Grid.choices()))
	fmt.Fprintln(w, "| fold | traces | knobs chosen on the other folds | as good | TP | FN | FP | TN |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for f, m := range cv.Folds {
		fmt.Fprintf(w, "| %d | %d | %s | %d | %d | %d | %d | %d |\n", f+1, m.TP+m.FN+m.FP+m.TN+m.Exempt, cv.Grid.Describe(cv.Chosen[f]), cv.Ties[f], m.TP, m.FN, m.FP, m.TN)
	}
	fmt.Fprintln(w, "\n(as good: how many of the combinations did as well on the other folds; ties go to the middle values)")
	fmt.Fprintf(w, "\nchosen on all labels: %s\n\npooled over the folds:\n\n", cv.Grid.Describe(cv.AllData))
	writeHeader(w)
	writeRow(w, "all folds", r.Metrics())
	fmt.Fprintln(w)
	writeDimensions(w, r.Outcomes)
	fmt.Fprintln(w)
	writeDisagreements(w, r.Outcomes)
}

// writeDimensions prints the mean score of each dimension for passed and
// failed positives and negatives: where the misses lose their points.
func writeDimensions(w io.Writer, outcomes []Outcome) {
	groups := []struct {
		name string
		in   func(o Outcome) bool
	}{
		{"positives passed", func(o Outcome) bool { return o.Label.Label == Pass && o.Passed }},
		{"positives failed", func(o Outcome) bool { return o.Label.Label == Pass && !o.Passed && o.Label.Exempt == "" }},
		{"negatives passed", func(o Outcome) bool { return o.Label.Label != Pass && o.Passed }},
		{"negatives failed", func(o Outcome) bool { return o.Label.Label != Pass && !o.Passed }},
	}
	fmt.Fprintf(w, "| mean score | n | %s |\n", strings.Join(validation.Dimensions[:], " | "))
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, g := range groups {
		var sum [validation.NumDimensions]int
		n := 0
		for _, o := range outcomes {
			if g.in(o) {
				n++
				for d, s := range o.Scores {
					sum[d] += s
				}
			}
		}
		cells := make([]string, len(sum))
		for d, s := range sum {
			cells[d] = "–"
			if n > 0 {
				cells[d] = fmt.Sprintf("%.1f", float64(s)/float64(n))
			}
		}
		fmt.Fprintf(w, "| %s | %d | %s |\n", g.name, n, strings.Join(cells, " | "))
	}
}
