package validation

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// unmarshalScoresBothWays is Scores.UnmarshalJSON as it was, trying every
// value as an array first (its keys read in order, as they now are): the
// definition the shortcut keeps to.
func unmarshalScoresBothWays(s *Scores, data []byte) error {
	var arr [NumDimensions]int
	if err := json.Unmarshal(data, &arr); err == nil {
		*s = arr
		return nil
	}
	var obj map[string]int
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("scores: want an object of dimension to integer: %w", err)
	}
	var out Scores
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		i, ok := dimensionIndex(k)
		if !ok {
			return fmt.Errorf("scores: unknown dimension %q", k)
		}
		out[i] = obj[k]
	}
	*s = out
	return nil
}

// FuzzScoresJSON requires Scores.UnmarshalJSON to read every value as
// trying it as an array first did: the same scores, an error for the
// same values, the same message.
func FuzzScoresJSON(f *testing.F) {
	for _, seed := range []string{
		`{"substance":4,"uniqueness":3,"specificity":4,"actionability":4,"structure":4,"freshness":3}`,
		`[4,3,4,4,4,3]`, ` [1,2]`, `[1,"x"]`, `null`, `{"charm":5}`, `"4"`, `4`, `{"substance":"4"}`, `[]`, `{}`, `{"substance":1,"Substance":2}`, `[1,2,3,4,5,6,7]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want Scores
		gotErr, wantErr := got.UnmarshalJSON(data), unmarshalScoresBothWays(&want, data)
		if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Errorf("%q: got %v, %v; trying it as an array first gave %v, %v", data, got, gotErr, want, wantErr)
		}
	})
}

// TestScoresSpelledTwiceReadTheSameEachTime requires a dimension given
// under two spellings to read as the same score every time: the last in
// the keys' order, not whichever the map's order gave.
func TestScoresSpelledTwiceReadTheSameEachTime(t *testing.T) {
	for range 100 {
		var s Scores
		if err := json.Unmarshal([]byte(`{"substance":1,"Substance":2,"uniqueness":3}`), &s); err != nil {
			t.Fatal(err)
		}
		if s != (Scores{1, 3}) {
			t.Fatalf("got %v, want [1 3 0 0 0 0]", s)
		}
	}
}
