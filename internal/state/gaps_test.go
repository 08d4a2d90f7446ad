package state

import (
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

func TestRangesNormalizeAndWithout(t *testing.T) {
	tests := []struct {
		name string
		got  Ranges
		want Ranges
	}{
		{"normalize merges adjacent ranges", Ranges{{1, 3}, {4, 6}}.Normalize(), Ranges{{1, 6}}},
		{"normalize merges overlapping ranges", Ranges{{1, 3}, {10, 12}, {2, 11}}.Normalize(), Ranges{{1, 12}}},
		{"normalize sorts disjoint ranges", Ranges{{10, 12}, {1, 2}}.Normalize(), Ranges{{1, 2}, {10, 12}}},
		{"normalize drops inverted ranges", Ranges{{9, 3}, {1, 1}}.Normalize(), Ranges{{1, 1}}},
		{"without splits a range", Range{46, 48}.Without([]manifest.Seq{47}), Ranges{{46, 46}, {48, 48}}},
		{"without at an edge shrinks it", Range{46, 48}.Without([]manifest.Seq{1, 46}), Ranges{{47, 48}}},
		{"without every seq empties", Range{5, 6}.Without([]manifest.Seq{5, 6}), nil},
		{"without outside changes nothing", Range{5, 6}.Without([]manifest.Seq{9}), Ranges{{5, 6}}},
		{"without of an inverted range is empty", Range{6, 5}.Without(nil), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Fatalf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestRangesContainsAndCount(t *testing.T) {
	rs := Ranges{{3, 5}, {104, 151}}
	for seq, want := range map[manifest.Seq]bool{2: false, 3: true, 5: true, 6: false, 104: true, 151: true, 152: false} {
		if got := rs.Contains(seq); got != want {
			t.Errorf("Contains(%d) = %v, want %v", seq, got, want)
		}
	}
	if n := rs.Count(); n != 51 {
		t.Errorf("Count = %d, want 51", n)
	}
}

func TestHostileSequenceStaysOneRange(t *testing.T) {
	rs := Range{2, 999999999}.Without([]manifest.Seq{1, 1000000000})
	if len(rs) != 1 || rs.Count() != 999999998 {
		t.Fatalf("got %v", rs)
	}
}

func TestScatteredGapsAreCappedWithoutLosingSeqs(t *testing.T) {
	var rs Ranges
	for i := manifest.Seq(0); i < 3*MaxGapRanges; i++ {
		rs = append(rs, Range{From: 3 * i, To: 3 * i})
	}
	capped := rs.Normalize()
	if len(capped) > MaxGapRanges {
		t.Fatalf("%d ranges kept, cap is %d", len(capped), MaxGapRanges)
	}
	for _, r := range rs {
		if !capped.Contains(r.From) {
			t.Fatalf("seq %d lost by capping", r.From)
		}
	}
}

func TestRetryListIsCappedIntoGaps(t *testing.T) {
	var retry []manifest.Seq
	for seq := manifest.Seq(MaxRetry + 10); seq > 0; seq-- {
		retry = append(retry, seq, seq)
	}
	kept, gaps := capRetry(retry, nil)
	if len(kept) != MaxRetry || kept[0] != 1 || kept[1] != 2 {
		t.Fatalf("retry len %d starts %v, want %d sorted and unique", len(kept), kept[:2], MaxRetry)
	}
	for seq := manifest.Seq(MaxRetry + 1); seq <= MaxRetry+10; seq++ {
		if !gaps.Contains(seq) {
			t.Fatalf("overflowing retry seq %d is neither retried nor in a gap", seq)
		}
	}
}
