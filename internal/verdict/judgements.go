package verdict

import "strings"

// Judgements returns what a trace by author says of other agents' traces:
// the verdicts Find reads, less those on the author's own traces (no
// agent judges itself), one per judged trace, in the order first
// written. A trace that gives one trace two different results (a batch
// that says VALID and later PARTIALLY VALID of the same item) says
// nothing certain of it, and that trace is left out
// (docs/decisions.md, "Verdict traces").
func Judgements(text []byte, author string) []Verdict {
	self := strings.ToLower(strings.TrimSpace(author))
	type target struct {
		agent string
		seq   int
	}
	first := map[target]int{}
	split := map[target]bool{}
	var out []Verdict
	for _, v := range Find(text) {
		if v.Agent == self {
			continue
		}
		k := target{v.Agent, v.Seq}
		i, seen := first[k]
		switch {
		case !seen:
			first[k] = len(out)
			out = append(out, v)
		case out[i].Result != v.Result:
			split[k] = true
		}
	}
	kept := out[:0]
	for _, v := range out {
		if !split[target{v.Agent, v.Seq}] {
			kept = append(kept, v)
		}
	}
	return kept
}
