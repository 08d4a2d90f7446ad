package score

import (
	"context"
	"fmt"

	"github.com/meshnode/meshnode/internal/validation"
)

// Heuristic is the built-in scorer: deterministic (the same input always
// gets the same result) and explained (every dimension comes with the
// facts that produced its score). See docs/scoring.md.
type Heuristic struct {
	// Params are its calibration knobs; nil means DefaultParams.
	Params *Params
}

// Name returns "heuristic".
func (Heuristic) Name() string { return KindHeuristic }

// dimension scores one dimension from what the judge saw.
type dimension func(j *judge) (int, []string)

// dimensions are in the order of validation.Dimensions.
var dimensions = [validation.NumDimensions]dimension{
	substance, uniqueness, specificity, actionability, structure, freshness,
}

// Score judges in. It never fails on content: an empty or unreadable
// trace simply scores low, with reasons that say so.
func (h Heuristic) Score(ctx context.Context, in Input) (*Result, error) {
	rs, err := ScoreEach(ctx, in, []*Params{h.params()})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// ScoreEach judges in once with each set of knobs, reading the trace once:
// what a grid search over Params needs (docs/scoring.md).
func ScoreEach(ctx context.Context, in Input, ps []*Params) ([]*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j := newJudge(in, copyDistance(ps))
	out := make([]*Result, len(ps))
	for n, p := range ps {
		out[n] = j.result(p)
	}
	return out, nil
}

// result scores the judged trace with the knobs p.
func (j *judge) result(p *Params) *Result {
	j.p = p
	r := &Result{}
	for i, dim := range dimensions {
		s, why := dim(j)
		r.Scores[i] = clamp(s)
		r.Reasons[i] = why
	}
	j.capCopy(r)
	r.Notes = notes(r)
	return r
}

func clamp(s int) int {
	return min(max(s, 0), validation.MaxScore)
}

// notes writes the one line that goes into the validation file.
func notes(r *Result) string {
	total := Total(r.Scores)
	best, worst := 0, 0
	for i, s := range r.Scores {
		if s > r.Scores[best] {
			best = i
		}
		if s < r.Scores[worst] {
			worst = i
		}
	}
	return fmt.Sprintf("Heuristic score %d/%d (%s). Strongest: %s %d (%s). Weakest: %s %d (%s).",
		total, validation.MaxTotal, verdict(total),
		validation.Dimensions[best], r.Scores[best], first(r.Reasons[best]),
		validation.Dimensions[worst], r.Scores[worst], first(r.Reasons[worst]))
}

// Total adds up the six dimensions.
func Total(s validation.Scores) int {
	t := 0
	for _, v := range s {
		t += v
	}
	return t
}

// verdict is the result a total earns (docs/protocol.md §7.2: pass at 18 of 30).
func verdict(total int) string {
	if total >= validation.PassThreshold {
		return validation.ResultPass
	}
	return validation.ResultFail
}

func first(reasons []string) string {
	if len(reasons) == 0 {
		return "no reason recorded"
	}
	return reasons[0]
}
