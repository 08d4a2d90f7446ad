package heartbeat

import (
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/state"
)

func entries(seqs ...manifest.Seq) []manifest.Entry {
	out := make([]manifest.Entry, len(seqs))
	for i, s := range seqs {
		out[i] = manifest.Entry{Seq: s, Hash: hashOf(s), File: "traces/t.md"}
	}
	return out
}

func hashOf(seq manifest.Seq) manifest.Hash {
	return manifest.HashBytes([]byte{byte(seq), byte(seq >> 8), byte(seq >> 16)})
}

func seqsOf(es []manifest.Entry) []manifest.Seq {
	var out []manifest.Seq
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
}

func TestPlanPoll(t *testing.T) {
	tests := []struct {
		name      string
		cursor    cursorView
		sequence  manifest.Seq
		rows      []manifest.Seq
		wantFetch []manifest.Seq
		wantLast  manifest.Seq
		wantGaps  []state.Range
		backwards bool
	}{
		{
			name: "first poll takes everything oldest first", sequence: 3, rows: []manifest.Seq{3, 1, 2},
			wantFetch: []manifest.Seq{1, 2, 3}, wantLast: 3,
		},
		{
			name: "nothing above the cursor", cursor: cursorView{lastSeen: 3}, sequence: 3, rows: []manifest.Seq{1, 2, 3},
			wantLast: 3,
		},
		{
			name: "only entries above the cursor", cursor: cursorView{lastSeen: 2}, sequence: 4, rows: []manifest.Seq{1, 2, 3, 4},
			wantFetch: []manifest.Seq{3, 4}, wantLast: 4,
		},
		{
			name: "a gap is recorded, not skipped", cursor: cursorView{lastSeen: 40}, sequence: 50, rows: []manifest.Seq{41, 42, 43, 44, 45, 49, 50},
			wantFetch: []manifest.Seq{41, 42, 43, 44, 45, 49, 50}, wantLast: 50, wantGaps: []state.Range{{From: 46, To: 48}},
		},
		{
			name: "a backfilled gap entry is fetched", cursor: cursorView{lastSeen: 50, gaps: []state.Range{{From: 46, To: 48}}},
			sequence: 50, rows: []manifest.Seq{45, 47, 50},
			wantFetch: []manifest.Seq{47}, wantLast: 50, wantGaps: []state.Range{{From: 46, To: 46}, {From: 48, To: 48}},
		},
		{
			name: "declared sequence above the last row is a gap", sequence: 254, rows: []manifest.Seq{1, 2, 250},
			wantFetch: []manifest.Seq{1, 2, 250}, wantLast: 254, wantGaps: []state.Range{{From: 3, To: 249}, {From: 251, To: 254}},
		},
		{
			name: "a retried entry is fetched again", cursor: cursorView{lastSeen: 5, retry: []manifest.Seq{2}}, sequence: 5, rows: []manifest.Seq{1, 2, 3, 4, 5},
			wantFetch: []manifest.Seq{2}, wantLast: 5,
		},
		{
			name: "sequence going backwards rescans and follows the peer down", cursor: cursorView{lastSeen: 10}, sequence: 3, rows: []manifest.Seq{1, 2, 3},
			wantFetch: []manifest.Seq{1, 2, 3}, wantLast: 3, backwards: true,
		},
		{
			name: "a hostile huge sequence is one range", sequence: 999999999, rows: []manifest.Seq{1},
			wantFetch: []manifest.Seq{1}, wantLast: 999999999, wantGaps: []state.Range{{From: 2, To: 999999999}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &manifest.Manifest{Sequence: tt.sequence, Entries: entries(tt.rows...)}
			p := planPoll(tt.cursor, m)
			if got := seqsOf(p.todo); !reflect.DeepEqual(got, tt.wantFetch) {
				t.Errorf("todo = %v, want %v", got, tt.wantFetch)
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

func TestPlanPollKeepsRowsWithoutFileInOrder(t *testing.T) {
	m := &manifest.Manifest{Sequence: 2, Entries: []manifest.Entry{
		{Seq: 2, Hash: hashOf(2), File: "traces/2.md"},
		{Seq: 1, Hash: hashOf(1), Title: "legacy row"},
	}}
	p := planPoll(cursorView{}, m)
	if got := seqsOf(p.todo); !reflect.DeepEqual(got, []manifest.Seq{1, 2}) || p.todo[0].File != "" {
		t.Fatalf("todo = %v, want the legacy row then the file", got)
	}
}

// TestPlanCutLeavesTheRestForTheNextPoll: wherever a budget or the
// deadline stops a poll, every wanted entry is either taken or still
// wanted next time (above the cursor, or on the retry list), and the
// cursor never moves backwards unless the peer's sequence did.
func TestPlanCutLeavesTheRestForTheNextPoll(t *testing.T) {
	tests := []struct {
		name      string
		cursor    cursorView
		sequence  manifest.Seq
		rows      []manifest.Seq
		cutAt     int
		wantTodo  []manifest.Seq
		wantLast  manifest.Seq
		wantRetry []manifest.Seq
		wantGaps  []state.Range
	}{
		{
			name: "a first poll cut in the middle", sequence: 10, rows: []manifest.Seq{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
			cutAt: 4, wantTodo: []manifest.Seq{1, 2, 3, 4}, wantLast: 4,
		},
		{
			name: "a cut keeps only the gaps below the new cursor", sequence: 20, rows: []manifest.Seq{1, 2, 5, 6, 15, 20},
			cutAt: 4, wantTodo: []manifest.Seq{1, 2, 5, 6}, wantLast: 14, wantGaps: []state.Range{{From: 3, To: 4}, {From: 7, To: 14}},
		},
		{
			name: "gap and retry entries left below the cursor go on the retry list", cursor: cursorView{lastSeen: 10, gaps: []state.Range{{From: 3, To: 4}}, retry: []manifest.Seq{7}},
			sequence: 12, rows: []manifest.Seq{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
			cutAt: 1, wantTodo: []manifest.Seq{3}, wantLast: 10, wantRetry: []manifest.Seq{4, 7},
		},
		{
			name: "a cut going backwards follows the peer down", cursor: cursorView{lastSeen: 100}, sequence: 5, rows: []manifest.Seq{1, 2, 3, 4, 5},
			cutAt: 2, wantTodo: []manifest.Seq{1, 2}, wantLast: 2,
		},
		{
			name: "a cut at a duplicated seq leaves the seq whole", sequence: 3, rows: []manifest.Seq{1, 2, 2, 3},
			cutAt: 2, wantTodo: []manifest.Seq{1, 2}, wantLast: 1,
		},
		{
			name: "a cut past the end changes nothing", sequence: 2, rows: []manifest.Seq{1, 2},
			cutAt: 5, wantTodo: []manifest.Seq{1, 2}, wantLast: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &manifest.Manifest{Sequence: tt.sequence, Entries: entries(tt.rows...)}
			for i := range m.Entries {
				m.Entries[i].Hash = manifest.HashBytes([]byte{byte(i)}) // duplicated seqs, distinct files
			}
			p := planPoll(tt.cursor, m)
			p.cut(tt.cutAt)
			if got := seqsOf(p.todo); !reflect.DeepEqual(got, tt.wantTodo) {
				t.Errorf("todo = %v, want %v", got, tt.wantTodo)
			}
			if p.lastSeen != tt.wantLast || !reflect.DeepEqual(p.retry, tt.wantRetry) || !reflect.DeepEqual(p.gaps, tt.wantGaps) {
				t.Errorf("cursor %d, retry %v, gaps %v; want %d, %v, %v", p.lastSeen, p.retry, p.gaps, tt.wantLast, tt.wantRetry, tt.wantGaps)
			}
			if p.truncated != (tt.cutAt < len(tt.rows)) {
				t.Errorf("truncated = %v", p.truncated)
			}
		})
	}
}

func TestPeersArePolledOneHostAtATurn(t *testing.T) {
	peers := []peer{
		{url: "https://a.example/1/"}, {url: "https://a.example/2/"}, {url: "https://a.example/3/"},
		{url: "https://B.example/1/"}, {url: "https://b.example/2/"},
		{url: "https://c.example/1/"}, {url: "::not a url"},
	}
	got := byHostInTurn(peers)
	want := []int{0, 3, 5, 6, 1, 4, 2}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("byHostInTurn = %v, want %v", got, want)
	}
	if got := byHostInTurn(nil); len(got) != 0 {
		t.Fatalf("byHostInTurn(nil) = %v", got)
	}
}
