package heartbeat

import (
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/state"
)

func entries(seqs ...int) []manifest.Entry {
	out := make([]manifest.Entry, len(seqs))
	for i, s := range seqs {
		out[i] = manifest.Entry{Seq: s, Hash: hashOf(s), File: "traces/t.md"}
	}
	return out
}

func hashOf(seq int) string {
	return manifest.HashBytes([]byte{byte(seq), byte(seq >> 8), byte(seq >> 16)})
}

func seqsOf(es []manifest.Entry) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
}

func TestPlanPoll(t *testing.T) {
	tests := []struct {
		name      string
		cursor    cursorView
		sequence  int
		rows      []int
		wantFetch []int
		wantLast  int
		wantGaps  []state.Range
		backwards bool
	}{
		{
			name: "first poll takes everything oldest first", sequence: 3, rows: []int{3, 1, 2},
			wantFetch: []int{1, 2, 3}, wantLast: 3,
		},
		{
			name: "nothing above the cursor", cursor: cursorView{lastSeen: 3}, sequence: 3, rows: []int{1, 2, 3},
			wantLast: 3,
		},
		{
			name: "only entries above the cursor", cursor: cursorView{lastSeen: 2}, sequence: 4, rows: []int{1, 2, 3, 4},
			wantFetch: []int{3, 4}, wantLast: 4,
		},
		{
			name: "a gap is recorded, not skipped", cursor: cursorView{lastSeen: 40}, sequence: 50, rows: []int{41, 42, 43, 44, 45, 49, 50},
			wantFetch: []int{41, 42, 43, 44, 45, 49, 50}, wantLast: 50, wantGaps: []state.Range{{From: 46, To: 48}},
		},
		{
			name: "a backfilled gap entry is fetched", cursor: cursorView{lastSeen: 50, gaps: []state.Range{{From: 46, To: 48}}},
			sequence: 50, rows: []int{45, 47, 50},
			wantFetch: []int{47}, wantLast: 50, wantGaps: []state.Range{{From: 46, To: 46}, {From: 48, To: 48}},
		},
		{
			name: "declared sequence above the last row is a gap", sequence: 254, rows: []int{1, 2, 250},
			wantFetch: []int{1, 2, 250}, wantLast: 254, wantGaps: []state.Range{{From: 3, To: 249}, {From: 251, To: 254}},
		},
		{
			name: "a retried entry is fetched again", cursor: cursorView{lastSeen: 5, retry: []int{2}}, sequence: 5, rows: []int{1, 2, 3, 4, 5},
			wantFetch: []int{2}, wantLast: 5,
		},
		{
			name: "sequence going backwards rescans and follows the peer down", cursor: cursorView{lastSeen: 10}, sequence: 3, rows: []int{1, 2, 3},
			wantFetch: []int{1, 2, 3}, wantLast: 3, backwards: true,
		},
		{
			name: "a hostile huge sequence is one range", sequence: 999999999, rows: []int{1},
			wantFetch: []int{1}, wantLast: 999999999, wantGaps: []state.Range{{From: 2, To: 999999999}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &manifest.Manifest{Sequence: tt.sequence, Entries: entries(tt.rows...)}
			p := planPoll(tt.cursor, m)
			if got := seqsOf(p.fetch); !reflect.DeepEqual(got, tt.wantFetch) {
				t.Errorf("fetch = %v, want %v", got, tt.wantFetch)
			}
			if p.lastSeen != tt.wantLast {
				t.Errorf("lastSeen = %d, want %d", p.lastSeen, tt.wantLast)
			}
			if !reflect.DeepEqual(p.gaps, tt.wantGaps) {
				t.Errorf("gaps = %v, want %v", p.gaps, tt.wantGaps)
			}
			if p.backwards != tt.backwards {
				t.Errorf("backwards = %v, want %v", p.backwards, tt.backwards)
			}
		})
	}
}

func TestPlanPollRecordsRowsWithoutFile(t *testing.T) {
	m := &manifest.Manifest{Sequence: 2, Entries: []manifest.Entry{
		{Seq: 1, Hash: hashOf(1), Title: "legacy row"},
		{Seq: 2, Hash: hashOf(2), File: "traces/2.md"},
	}}
	p := planPoll(cursorView{}, m)
	if len(p.record) != 1 || p.record[0].Seq != 1 {
		t.Fatalf("record = %v, want the row without a file", seqsOf(p.record))
	}
	if got := seqsOf(p.fetch); !reflect.DeepEqual(got, []int{2}) {
		t.Fatalf("fetch = %v, want [2]", got)
	}
}

func TestPlanPollCapsFetchesAndKeepsTheRestForLater(t *testing.T) {
	rows := make([]int, maxFetchPerPoll+10)
	for i := range rows {
		rows[i] = i + 1
	}
	p := planPoll(cursorView{}, &manifest.Manifest{Sequence: len(rows), Entries: entries(rows...)})
	if len(p.fetch) != maxFetchPerPoll || !p.truncated {
		t.Fatalf("fetched %d (truncated=%v), want %d", len(p.fetch), p.truncated, maxFetchPerPoll)
	}
	if p.lastSeen != maxFetchPerPoll {
		t.Fatalf("cursor advanced to %d, want %d so the rest comes next time", p.lastSeen, maxFetchPerPoll)
	}
}
