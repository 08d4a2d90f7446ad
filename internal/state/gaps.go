package state

import (
	"slices"
	"sort"

	"github.com/meshnode/meshnode/internal/manifest"
)

// MaxGapRanges caps the gap ranges kept per peer and MaxRetry the seqs on
// its retry list. A hostile manifest (sequence: 999999999, rows scattered
// one seq apart) must not grow the state without bound. Over the cap,
// neighbouring ranges are merged: the gap then also covers a few seqs
// already seen, which only costs a re-fetch deduplicated by hash, whereas
// dropping a range would skip entries forever.
const (
	MaxGapRanges = 1024
	MaxRetry     = 1024
)

// Range is an inclusive span of seqs, From ≤ To.
type Range struct {
	From manifest.Seq `json:"from"`
	To   manifest.Seq `json:"to"`
}

// Len returns the number of seqs in r.
func (r Range) Len() int { return int(r.To-r.From) + 1 }

// Ranges is a set of seqs stored as sorted, disjoint, non-adjacent ranges.
type Ranges []Range

// Without returns the parts of r that hold none of the sorted seqs.
func (r Range) Without(sorted []manifest.Seq) Ranges {
	if r.From > r.To {
		return nil
	}
	var out Ranges
	cur := r.From
	from, _ := slices.BinarySearch(sorted, r.From)
	for _, s := range sorted[from:] {
		if s > r.To {
			break
		}
		if s > cur {
			out = append(out, Range{From: cur, To: s - 1})
		}
		cur = s + 1
	}
	if cur <= r.To {
		out = append(out, Range{From: cur, To: r.To})
	}
	return out
}

// Contains reports whether seq is in one of the ranges.
func (rs Ranges) Contains(seq manifest.Seq) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].To >= seq })
	return i < len(rs) && rs[i].From <= seq
}

// Count returns how many seqs the ranges hold.
func (rs Ranges) Count() int {
	n := 0
	for _, r := range rs {
		n += r.Len()
	}
	return n
}

// Normalize returns the ranges sorted, with invalid ones (From > To) dropped,
// overlapping and adjacent ones merged, and at most MaxGapRanges kept.
func (rs Ranges) Normalize() Ranges {
	valid := make(Ranges, 0, len(rs))
	for _, r := range rs {
		if r.From <= r.To {
			valid = append(valid, r)
		}
	}
	if len(valid) == 0 {
		return nil
	}
	sort.Slice(valid, func(i, j int) bool { return valid[i].From < valid[j].From })
	out := valid[:1]
	for _, r := range valid[1:] {
		last := &out[len(out)-1]
		if r.From <= last.To+1 {
			last.To = max(last.To, r.To)
			continue
		}
		out = append(out, r)
	}
	return capRanges(out)
}

// capRanges merges the ranges separated by the smallest holes until at
// most MaxGapRanges remain.
func capRanges(rs Ranges) Ranges {
	for len(rs) > MaxGapRanges {
		best := 0
		for i := 1; i < len(rs)-1; i++ {
			if rs[i+1].From-rs[i].To < rs[best+1].From-rs[best].To {
				best = i
			}
		}
		rs[best].To = rs[best+1].To
		rs = append(rs[:best+1], rs[best+2:]...)
	}
	return rs
}

// capRetry returns retry sorted and unique with at most MaxRetry seqs; the
// highest seqs over the cap move into gaps, where they are still asked for.
func capRetry(retry []manifest.Seq, gaps Ranges) ([]manifest.Seq, Ranges) {
	if len(retry) == 0 {
		return nil, gaps
	}
	uniq := slices.Clone(retry)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	if len(uniq) <= MaxRetry {
		return uniq, gaps
	}
	extra := append(Ranges(nil), gaps...)
	for _, v := range uniq[MaxRetry:] {
		extra = append(extra, Range{From: v, To: v})
	}
	return uniq[:MaxRetry], extra.Normalize()
}
