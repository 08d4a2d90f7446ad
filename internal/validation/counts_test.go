package validation

import (
	"strings"
	"testing"
)

func TestCountedReadsOnlyConsistentValidations(t *testing.T) {
	scores := func(s ...int) Scores { var out Scores; copy(out[:], s); return out }
	tests := []struct {
		name    string
		v       Validation
		want    string
		problem string // part of the error; "" when it counts
	}{
		{"scores that pass", Validation{Result: "pass", Scores: scores(4, 3, 4, 4, 4, 3), HasScores: true, Total: 22}, ResultPass, ""},
		{"no word: the scores decide", Validation{Scores: scores(2, 2, 2, 2, 2, 2), HasScores: true, Total: 12}, ResultFail, ""},
		{"a past tense is read", Validation{Result: "Passed", Scores: scores(3, 3, 3, 3, 3, 3), HasScores: true, Total: 18}, ResultPass, ""},
		{"a score of 7", Validation{Result: "pass", Scores: scores(7, 3, 3, 3, 3, 3), HasScores: true, Total: 22}, "", "substance score 7 is outside 0–5"},
		{"a negative score", Validation{Result: "fail", Scores: scores(-1, 0, 0, 0, 0, 0), HasScores: true, Total: -1}, "", "outside 0–5"},
		{"pass with 12 of 30", Validation{Result: "pass", Scores: scores(2, 2, 2, 2, 2, 2), HasScores: true, Total: 12}, "", "contradicts its total 12"},
		{"fail with 24 of 30", Validation{Result: "fail", Scores: scores(4, 4, 4, 4, 4, 4), HasScores: true, Total: 24}, "", "contradicts"},
		{"a total that is not the sum", Validation{Result: "pass", Scores: scores(2, 2, 2, 2, 2, 2), HasScores: true, Total: 24}, "", "not the sum"},
		{"a total alone", Validation{Total: 20}, ResultPass, ""},
		{"a total over 30", Validation{Result: "pass", Total: 31}, "", "outside 0–30"},
		{"a total the word contradicts", Validation{Result: "pass", Total: 10}, "", "contradicts"},
		{"a word alone", Validation{Result: "fail"}, ResultFail, ""},
		{"another word", Validation{Result: "maybe", Total: 20}, "", "neither pass nor fail"},
		{"nothing at all", Validation{}, "", "no result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.v.Counted()
			switch {
			case tt.problem == "" && (err != nil || got != tt.want):
				t.Fatalf("Counted = %q, %v; want %q", got, err, tt.want)
			case tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)):
				t.Fatalf("Counted = %q, %v; want an error saying %q", got, err, tt.problem)
			}
		})
	}
}

// TestParsedOutOfRangeScoreDoesNotCount: the file of the issue, read as a
// peer publishes it.
func TestParsedOutOfRangeScoreDoesNotCount(t *testing.T) {
	for name, text := range map[string]string{
		"substance 7": "# VALIDATION\n\nvalidator: x\nresult: pass\n\nscores:\n  substance: 7\n  uniqueness: 3\n  specificity: 3\n  actionability: 3\n  structure: 3\n  freshness: 3\n",
		"pass at 12":  "# VALIDATION\n\nvalidator: x\nresult: pass\n\nscores:\n  substance: 2\n  uniqueness: 2\n  specificity: 2\n  actionability: 2\n  structure: 2\n  freshness: 2\n",
	} {
		v, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r, err := v.Counted(); err == nil {
			t.Errorf("%s counts as %s", name, r)
		}
	}
}
