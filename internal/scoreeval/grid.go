package scoreeval

import (
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/score"
)

// Knob is one of the heuristic's calibration knobs and the values a grid
// search tries for it. The middle value is the one set by judgement before
// any search; ties go to it.
type Knob struct {
	Name   string
	Values []int
	Set    func(p *score.Params, v int)
}

// Grid is the knobs searched together: every combination of their values
// is tried.
type Grid []Knob

// DefaultGrid is the search docs/scoring.md reports: four knobs, 108
// combinations. The ranges reach where the labels tell values apart:
// within them, pass and fail move only at the edges (a near-copy distance
// of 2 passes duplicates, 8 fails a positive), so the grid shows both how
// much room the shipped values have and that the search finds them.
var DefaultGrid = Grid{
	{Name: "near-copy distance", Values: []int{2, 4, 6, 8}, Set: func(p *score.Params, v int) { p.NearCopyDistance = v }},
	{Name: "similar distance", Values: []int{8, 12, 20}, Set: func(p *score.Params, v int) { p.SimilarDistance = v }},
	{Name: "substance step", Values: []int{100, 150, 250}, Set: func(p *score.Params, v int) {
		// The steps keep their shape: a paragraph, a short note (×2), a
		// page (×4), a long report (×6⅔); the first is ThinWords.
		p.SubstanceWords = [5]int{score.ThinWords, v, 2 * v, 4 * v, v * 20 / 3}
	}},
	{Name: "short words", Values: []int{80, 120, 250}, Set: func(p *score.Params, v int) {
		// A brief note is about twice a short one: 120 and 250.
		p.ShortWords, p.BriefWords = v, v*25/12
	}},
}

// Choice is one value index per knob of a grid.
type Choice []int

// Params applies the choice to score.DefaultParams.
func (g Grid) Params(c Choice) score.Params {
	p := score.DefaultParams
	for i, k := range g {
		k.Set(&p, k.Values[c[i]])
	}
	return p
}

// Describe names the chosen values, "substance step=150, …".
func (g Grid) Describe(c Choice) string {
	parts := make([]string, len(g))
	for i, k := range g {
		parts[i] = fmt.Sprintf("%s=%d", k.Name, k.Values[c[i]])
	}
	return strings.Join(parts, ", ")
}

// choices lists every combination, the first knob slowest.
func (g Grid) choices() []Choice {
	out := []Choice{{}}
	for _, k := range g {
		var next []Choice
		for _, c := range out {
			for v := range k.Values {
				next = append(next, append(append(Choice{}, c...), v))
			}
		}
		out = next
	}
	return out
}

// offCentre is how far a choice strays from the knobs' middle values.
func (g Grid) offCentre(c Choice) int {
	d := 0
	for i, k := range g {
		d += abs(c[i] - len(k.Values)/2)
	}
	return d
}

func abs(x int) int { return max(x, -x) }
