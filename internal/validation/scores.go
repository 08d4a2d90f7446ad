package validation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Total is the sum of the six scores.
func (s Scores) Total() int {
	t := 0
	for _, v := range s {
		t += v
	}
	return t
}

// ResultFor returns ResultPass when total reaches PassThreshold, else
// ResultFail.
func ResultFor(total int) string {
	if total >= PassThreshold {
		return ResultPass
	}
	return ResultFail
}

// SetScores gives v the six scores and the total and result they make:
// the one place a validation's verdict follows from its scores.
func (v *Validation) SetScores(s Scores) {
	v.Scores, v.HasScores = s, true
	v.Total = s.Total()
	v.Result = ResultFor(v.Total)
}

// dimensionIndex returns the index of a dimension name, case-insensitively.
func dimensionIndex(name string) (int, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	for i, d := range Dimensions {
		if d == n {
			return i, true
		}
	}
	return 0, false
}

// MarshalJSON writes the scores as an object keyed by dimension, in
// canonical order: {"substance":4,"uniqueness":3,...}.
func (s Scores) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, d := range Dimensions {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", d, s[i])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object keyed by dimension (missing dimensions are
// 0, unknown ones an error) or, for files written before scores were
// objects, an array of six numbers.
func (s *Scores) UnmarshalJSON(data []byte) error {
	// Only an array is tried as one: trying each object first decoded
	// it twice, and a heartbeat with news reads 200,000 after a year.
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		var arr [NumDimensions]int
		if err := json.Unmarshal(data, &arr); err == nil {
			*s = arr
			return nil
		}
	}
	var obj map[string]int
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("scores: want an object of dimension to integer: %w", err)
	}
	var out Scores
	// In the keys' order, so that the error and, for a dimension spelled
	// twice ("Substance", "substance"), the score are always the same.
	var buf [NumDimensions]string // on the stack for as many keys as dimensions
	keys := buf[:0]
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		i, ok := dimensionIndex(k)
		if !ok {
			return fmt.Errorf("scores: unknown dimension %q", k)
		}
		out[i] = obj[k]
	}
	*s = out
	return nil
}

// parseScore reads "4", "4/5" or "**4**" as a score.
func parseScore(s string) (int, error) {
	v := strings.Trim(strings.TrimSpace(s), "*` ")
	v, _, _ = strings.Cut(v, "/")
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("score %q is not an integer", clip(s))
	}
	return n, nil
}
