package validation

import (
	"errors"
	"fmt"
	"strings"
)

// Counted returns the result a validation counts as, ResultPass or
// ResultFail, or an error saying why it counts for nothing. Every reader
// of validations (SIGNAL, the site, the peers listing) asks this, so that
// two nodes holding the same files count the same votes
// (docs/decisions.md, "Validations that count"). Whether it names a
// trace the reader holds is the reader's to check.
//
//   - with scores, each is an integer 0–5, a total it states is their sum,
//     and a result it states is the one the sum gives (pass at 18): a file
//     whose word contradicts its scores is not read either way;
//   - without scores, a total it states is 0–30 and a result it states
//     agrees with it; a result alone counts by its word.
func (v *Validation) Counted() (string, error) {
	result, ok := normalResult(v.Result)
	if !ok {
		return "", fmt.Errorf("result %q is neither pass nor fail", clip(v.Result))
	}
	if v.HasScores {
		if p := v.Scores.outOfRange(); p != "" {
			return "", errors.New(p)
		}
		if sum := v.Scores.Total(); v.Total != sum {
			return "", fmt.Errorf("total %d is not the sum of the scores (%d)", v.Total, sum)
		}
	}
	if v.Total < 0 || v.Total > MaxTotal {
		return "", fmt.Errorf("total %d is outside 0–%d", v.Total, MaxTotal)
	}
	if !v.HasScores && v.Total == 0 {
		// A verdict alone (the v0.2 layout allows it): nothing to check
		// the word against.
		if result == "" {
			return "", errors.New("no result, no total and no scores")
		}
		return result, nil
	}
	want := ResultFor(v.Total)
	if result != "" && result != want {
		return "", fmt.Errorf("result %s contradicts its total %d of %d (pass at %d)", result, v.Total, MaxTotal, PassThreshold)
	}
	return want, nil
}

// normalResult reads a result word: pass or fail, and the past tenses
// some validators write; "" is no word. ok is false for any other word.
func normalResult(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return "", true
	case ResultPass, "passed":
		return ResultPass, true
	case ResultFail, "failed":
		return ResultFail, true
	}
	return "", false
}

// outOfRange names the first score outside 0–5, or returns "".
func (s Scores) outOfRange() string {
	for i, n := range s {
		if n < 0 || n > MaxScore {
			return fmt.Sprintf("%s score %d is outside 0–%d", Dimensions[i], n, MaxScore)
		}
	}
	return ""
}
