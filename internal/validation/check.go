package validation

import "fmt"

// Check returns what is inconsistent in v, or nothing: scores outside
// 0–5, a total outside 0–30 or (when there are scores) not their sum, a
// result other than pass/fail or not the one the total gives, a malformed
// hash, a missing validator or trace URL.
func (v *Validation) Check() []string { return v.check(true) }

// check is Check; without consistent, a score or the total did not parse,
// so sums and results are not judged.
func (v *Validation) check(consistent bool) []string {
	var problems []string
	if v.HasScores {
		for i, s := range v.Scores {
			if s < 0 || s > MaxScore {
				problems = append(problems, fmt.Sprintf("%s score %d is outside 0–%d", Dimensions[i], s, MaxScore))
			}
		}
		if sum := v.Scores.Total(); consistent && sum != v.Total {
			problems = append(problems, fmt.Sprintf("total_score %d is not the sum of the scores (%d)", v.Total, sum))
		}
	}
	if v.Total < 0 || v.Total > MaxTotal {
		problems = append(problems, fmt.Sprintf("total_score %d is outside 0–%d", v.Total, MaxTotal))
	}
	switch {
	case v.Result == "" && !consistent:
	case v.Result != ResultPass && v.Result != ResultFail:
		problems = append(problems, fmt.Sprintf("result %q is neither pass nor fail", clip(v.Result)))
	case consistent && v.Result != ResultFor(v.Total):
		problems = append(problems, fmt.Sprintf("result %s does not match total_score %d (pass at %d)", v.Result, v.Total, PassThreshold))
	}
	if !v.TraceHash.Valid() {
		problems = append(problems, fmt.Sprintf("trace_hash %q is not sha256:<64 lowercase hex>", clip(string(v.TraceHash))))
	}
	if v.Validator == "" {
		problems = append(problems, "validator is missing")
	}
	if v.TraceURL == "" {
		problems = append(problems, "trace_url is missing")
	}
	return problems
}
