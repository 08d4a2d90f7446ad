package score

import (
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/trace"
)

// copyDistance is the farthest simhash distance at which any of ps looks
// at the nearest known trace (NearCopyDistance, SimilarDistance).
func copyDistance(ps []*Params) int {
	d := -1
	for _, p := range ps {
		d = max(d, p.NearCopyDistance, p.SimilarDistance)
	}
	return d
}

// nearestKnown finds the known trace closest to fp, ties broken by hash,
// among those no farther than within; (Known{}, 65) when there is none.
// The heuristic looks no farther (copyDistance), so the distance is
// compared first and the hashes only of those that close: this runs over
// every known trace for every trace scored.
func nearestKnown(in Input, fp trace.Fingerprint, within int) (Known, int) {
	best, bestDist := -1, min(within, 64)+1
	for i := range in.Known {
		k := &in.Known[i]
		d := Distance(fp, k.Fingerprint)
		if d > bestDist || k.Fingerprint == 0 || k.Hash == in.Record.Hash {
			continue
		}
		if d < bestDist || best >= 0 && k.Hash < in.Known[best].Hash {
			best, bestDist = i, d
		}
	}
	if best < 0 {
		return Known{}, 65
	}
	return in.Known[best], bestDist
}

// copyDimensions are the dimensions a near-copy cannot earn: its
// substance, specificity and actionability were already counted for the
// trace it copies, so a republished trace fails however good the original.
var copyDimensions = []int{0, 2, 3}

func (j *judge) capCopy(r *Result) {
	if j.copyDist > j.p.NearCopyDistance {
		return
	}
	for _, i := range copyDimensions {
		if r.Scores[i] > 1 {
			r.Scores[i] = 1
			r.Reasons[i] = append(r.Reasons[i], "capped at 1: near-copy of "+j.copyOf())
		}
	}
}

// nearCopies scores a trace that repeats a known one: the copy adds
// nothing of its own.
func (j *judge) nearCopies(s int, why []string) (int, []string) {
	switch {
	case j.copyDist <= j.p.NearCopyDistance:
		return 0, append(why, "0: near-copy of "+j.copyOf())
	case j.copyDist <= j.p.SimilarDistance && s > 1:
		return 1, append(why, "capped at 1: mostly the same text as "+j.copyOf())
	}
	return s, why
}

// copyOf names the nearest known trace, for reasons.
func (j *judge) copyOf() string {
	who := "another agent's"
	if strings.EqualFold(j.nearest.Agent, j.in.Record.Agent) {
		who = "the same agent's"
	}
	return fmt.Sprintf("%s trace %s (distance %d)", who, j.nearest.Hash.Hex(12), j.copyDist)
}
