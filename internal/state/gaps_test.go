package state

import (
	"reflect"
	"testing"
)

func TestRangesAddRemoveContains(t *testing.T) {
	tests := []struct {
		name string
		got  Ranges
		want Ranges
	}{
		{"add merges adjacent ranges", Ranges{{1, 3}}.Add(4, 6), Ranges{{1, 6}}},
		{"add merges overlapping ranges", Ranges{{1, 3}, {10, 12}}.Add(2, 11), Ranges{{1, 12}}},
		{"add keeps disjoint ranges sorted", Ranges{{10, 12}}.Add(1, 2), Ranges{{1, 2}, {10, 12}}},
		{"add of an empty span is a no-op", Ranges{{1, 2}}.Add(5, 4), Ranges{{1, 2}}},
		{"remove splits a range", Ranges{{46, 48}}.Remove(47), Ranges{{46, 46}, {48, 48}}},
		{"remove at an edge shrinks it", Ranges{{46, 48}}.Remove(46), Ranges{{47, 48}}},
		{"remove of the last seq empties", Ranges{{5, 5}}.Remove(5), nil},
		{"remove outside changes nothing", Ranges{{5, 6}}.Remove(9), Ranges{{5, 6}}},
		{"normalize drops inverted ranges", Ranges{{9, 3}, {1, 1}}.Normalize(), Ranges{{1, 1}}},
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
	for seq, want := range map[int]bool{2: false, 3: true, 5: true, 6: false, 104: true, 151: true, 152: false} {
		if got := rs.Contains(seq); got != want {
			t.Errorf("Contains(%d) = %v, want %v", seq, got, want)
		}
	}
	if n := rs.Count(); n != 51 {
		t.Errorf("Count = %d, want 51", n)
	}
}

func TestHostileSequenceStaysOneRange(t *testing.T) {
	rs := Ranges(nil).Add(2, 999999999)
	if len(rs) != 1 || rs.Count() != 999999998 {
		t.Fatalf("got %v", rs)
	}
}

func TestScatteredGapsAreCappedWithoutLosingSeqs(t *testing.T) {
	var rs Ranges
	for i := 0; i < 3*MaxGapRanges; i++ {
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
	c := &Cursor{}
	for seq := MaxRetry + 10; seq > 0; seq-- {
		c.AddRetry(seq)
	}
	if len(c.Retry) != MaxRetry || c.Retry[0] != 1 {
		t.Fatalf("retry len %d first %d", len(c.Retry), c.Retry[0])
	}
	for seq := MaxRetry + 1; seq <= MaxRetry+10; seq++ {
		if !c.Gaps.Contains(seq) {
			t.Fatalf("overflowing retry seq %d is neither retried nor in a gap", seq)
		}
	}
	c.RemoveRetry(1)
	if c.Retry[0] != 2 {
		t.Fatalf("RemoveRetry left %v", c.Retry[:3])
	}
}
