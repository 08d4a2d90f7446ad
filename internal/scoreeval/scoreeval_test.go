package scoreeval

import (
	"context"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/score"
)

var update = flag.Bool("update", false, "rewrite labels.json's judged entries from the corpus, keeping the hand-labelled ones")

func loadCorpus(t *testing.T) *Corpus {
	t.Helper()
	c, err := LoadCorpus(corpustest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func loadLabels(t *testing.T) []Label {
	t.Helper()
	ls, err := Labels()
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestLabelsHoldEveryPublicJudgement checks that labels.json holds every
// verdict and curation the snapshot's agents published about another
// agent's trace, with the label they gave, and that the hand labels make
// at least as many negatives as there are positives, at least 60 in all.
func TestLabelsHoldEveryPublicJudgement(t *testing.T) {
	c := loadCorpus(t)
	judged, err := FromJudgements(c)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		writeLabels(t, judged, loadLabels(t))
	}
	ls := loadLabels(t)
	byHash := map[manifest.Hash]Label{}
	pos, neg := 0, 0
	for _, l := range ls {
		byHash[l.SHA256] = l
		if tr, ok := c.ByHash(l.SHA256); !ok || tr.Agent != l.Agent || tr.Entry.Seq != l.Seq || tr.Entry.File != l.File {
			t.Errorf("%s: hash %s is not that trace in the corpus", l.Key(), l.SHA256)
		}
		if l.Label == Pass {
			pos++
		} else {
			neg++
		}
	}
	for _, j := range judged {
		l, ok := byHash[j.SHA256]
		switch {
		case !ok:
			t.Errorf("%s (%s) is missing from labels.json; run with -update", j.Key(), j.Source)
		case l.Label != j.Label || l.Source != j.Source:
			t.Errorf("%s: labelled %s from %q, the corpus says %s from %q; run with -update", j.Key(), l.Label, l.Source, j.Label, j.Source)
		}
	}
	if len(judged) < 25 {
		t.Errorf("only %d traces judged in public, want at least 25: the verdict parser lost layouts", len(judged))
	}
	if neg < pos || pos+neg < 60 {
		t.Errorf("%d positives and %d negatives: want at least as many negatives, 60 in all", pos, neg)
	}
	t.Logf("%d labels: %d positives (%d from public judgements), %d negatives", len(ls), pos, len(judged), neg)
}

// writeLabels replaces the judged entries, keeping hand labels and the
// exemptions a person wrote.
func writeLabels(t *testing.T, judged, old []Label) {
	t.Helper()
	exempt := map[manifest.Hash]string{}
	out := append([]Label(nil), judged...)
	for _, l := range old {
		if l.Source == "hand" {
			out = append(out, l)
		} else if l.Exempt != "" {
			exempt[l.SHA256] = l.Exempt
		}
	}
	for i := range out {
		if e := exempt[out[i].SHA256]; e != "" {
			out[i].Exempt = e
		}
	}
	data, err := FormatLabels(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("labels.json", data, 0o644); err != nil {
		t.Fatal(err)
	}
	labelsJSON = data
}

// TestFoldsAreStratifiedAndDeterministic checks that every fold holds its
// share of positives and of negatives, and that the folds depend on the
// labels only, not on their order.
func TestFoldsAreStratifiedAndDeterministic(t *testing.T) {
	ls := loadLabels(t)
	const k = 8
	folds := Folds(ls, k)
	pos, neg := make([]int, k), make([]int, k)
	nPos, nNeg := 0, 0
	for i, l := range ls {
		if l.Label == Pass {
			pos[folds[i]]++
			nPos++
		} else {
			neg[folds[i]]++
			nNeg++
		}
	}
	// Dealt round the folds, each holds its share rounded down or up.
	for f := range k {
		if pos[f] < nPos/k || pos[f] > (nPos+k-1)/k || neg[f] < nNeg/k || neg[f] > (nNeg+k-1)/k {
			t.Errorf("fold %d holds %d positives and %d negatives, want %d–%d and %d–%d",
				f, pos[f], neg[f], nPos/k, (nPos+k-1)/k, nNeg/k, (nNeg+k-1)/k)
		}
	}
	rev := slices.Clone(ls)
	slices.Reverse(rev)
	revFolds := Folds(rev, k)
	for i := range ls {
		if got, want := revFolds[len(ls)-1-i], folds[i]; got != want {
			t.Fatalf("%s is in fold %d, or %d when the labels come in reverse", ls[i].Key(), want, got)
		}
	}
}

// TestChooseTakesTheBestAndBreaksTiesTowardTheMiddle checks the grid
// search on made-up outcomes: the most balanced accuracy wins, a choice
// that passes a thin note never does, and ties go to the middle values.
func TestChooseTakesTheBestAndBreaksTiesTowardTheMiddle(t *testing.T) {
	g := Grid{{Name: "k", Values: []int{1, 2, 3, 4, 5}, Set: func(*score.Params, int) {}}}
	choices := g.choices()
	pos := Outcome{Label: Label{Label: Pass}, Words: 100}
	neg := Outcome{Label: Label{Label: "fail"}, Words: 100}
	thin := Outcome{Label: Label{Label: "fail"}, Words: 10}
	pass := func(o Outcome) Outcome { o.Passed = true; return o }
	table := [][]Outcome{
		{pass(pos), pass(pos), neg, thin},       // recall 1, negatives failed 1: best
		{pass(pos), pass(pos), neg, pass(thin)}, // passes a thin note: out
		{pass(pos), pos, neg, thin},             // recall 0.5
		{pass(pos), pass(pos), neg, thin},       // as good as the first, nearer the middle value
		{pass(pos), pass(pos), pass(neg), thin}, // a negative passes
	}
	best, ties := choose(g, choices, table, func(int) bool { return true })
	if best != 3 || ties != 2 {
		t.Errorf("chose %d with %d ties, want 3 (the best nearer the middle) with 2", best, ties)
	}
	// Without the second positive the third choice, the middle value, is
	// as good as the best and wins the tie.
	best, ties = choose(g, choices, table, func(i int) bool { return i != 1 })
	if best != 2 || ties != 3 {
		t.Errorf("without the second positive chose %d with %d ties, want 2 (the middle) with 3", best, ties)
	}
}

func TestParseLabelsRejectsBadEntries(t *testing.T) {
	h := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct{ name, data, want string }{
		{"not JSON", "{", "labels"},
		{"unknown field", `[{"agent":"a","seq":1,"file":"f","sha256":"` + h + `","label":"pass","reason":"r","source":"s","x":1}]`, "unknown field"},
		{"bad label", `[{"agent":"a","seq":1,"file":"f","sha256":"` + h + `","label":"ok","reason":"r","source":"s"}]`, "not pass or fail"},
		{"no reason", `[{"agent":"a","seq":1,"file":"f","sha256":"` + h + `","label":"fail","reason":" ","source":"s"}]`, "reason"},
		{"short hash", `[{"agent":"a","seq":1,"file":"f","sha256":"sha256:ab","label":"fail","reason":"r","source":"s"}]`, "64 hex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseLabels([]byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// Floors on the pooled cross-validation, the targets of issue 12
// (docs/scoring.md): of the 42 positives held to recall, four misses
// clear 90 % (38 of 42); a fifth would not.
const (
	minRecall          = 0.9
	minPrecision       = 0.9
	minNegativesFailed = 0.9
	folds              = 8
)

// TestHeuristicAgreesWithTheMesh cross-validates the heuristic on the
// labelled traces, scored as a node that caught up with the snapshot
// would: on each of 8 folds the knobs are chosen on the other seven and
// the fold is scored with them. It holds the pooled figures to the
// targets, no thin note to passing, and DefaultParams to the knobs the
// search chooses on all the labels.
func TestHeuristicAgreesWithTheMesh(t *testing.T) {
	c := loadCorpus(t)
	cv, err := CrossValidate(context.Background(), c, loadLabels(t), SnapshotTime, DefaultGrid, folds)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	cv.WriteText(&b)
	t.Log("\n" + b.String())
	m := cv.Pooled.Metrics()
	if m.TP+m.FN+m.FP+m.TN+m.Exempt != len(loadLabels(t)) {
		t.Errorf("pooled %d outcomes, want every label once", m.TP+m.FN+m.FP+m.TN+m.Exempt)
	}
	if m.Recall() < minRecall || m.Precision() < minPrecision || m.NegativesFailed() < minNegativesFailed {
		t.Errorf("pooled recall %.2f, precision %.2f, negatives failed %.2f: want at least %.2f, %.2f, %.2f",
			m.Recall(), m.Precision(), m.NegativesFailed(), minRecall, minPrecision, minNegativesFailed)
	}
	if m.ThinPassed > 0 {
		t.Errorf("%d thin notes (under %d words) passed", m.ThinPassed, ThinWords)
	}
	if got := DefaultGrid.Params(cv.AllData); got != score.DefaultParams {
		t.Errorf("the search chooses %s on all labels, but score.DefaultParams is %+v", DefaultGrid.Describe(cv.AllData), score.DefaultParams)
	}
}
