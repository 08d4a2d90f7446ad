package check

import (
	"bytes"
	"strings"

	"github.com/meshnode/meshnode/internal/validation"
)

// lineOf returns the 1-based number of the first line that sets one of
// keys, in any layout a validation is written in ("key: v", "  key: v",
// "- Key: v", "**Key:** v"), or 0 when none does.
func lineOf(data []byte, keys ...string) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		s := strings.ToLower(strings.TrimSpace(string(l)))
		s = strings.TrimLeft(s, "-* ")
		s = strings.ReplaceAll(s, "**", "")
		for _, k := range keys {
			if strings.HasPrefix(s, k+":") {
				return i + 1
			}
		}
	}
	return 0
}

// fieldKeys maps what a message talks about to the keys of the line it is
// about, most specific first: a message naming a dimension is about that
// score; one naming the result is about the result line even when it
// quotes the total.
var fieldKeys = func() [][]string {
	var out [][]string
	for _, d := range validation.Dimensions {
		out = append(out, []string{d})
	}
	return append(out,
		[]string{"result", "verdict"},
		[]string{"total_score", "total"},
		[]string{"trace_hash", "hash"},
		[]string{"trace_url", "trace"},
		[]string{"validator_url"},
		[]string{"validated_at", "date"},
		[]string{"validator"},
	)
}()

// lineFor finds the line a message from the validation package is about.
func lineFor(data []byte, msg string) int {
	m := strings.ToLower(msg)
	for _, keys := range fieldKeys {
		if strings.Contains(m, keys[0]) {
			if n := lineOf(data, keys...); n > 0 {
				return n
			}
		}
	}
	return 1
}
