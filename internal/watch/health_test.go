package watch

import (
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/state"
)

func TestHealthTellsEachChangeOnce(t *testing.T) {
	var h health
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	c := &state.Cursor{Agent: "ada"}
	cursors := map[string]*state.Cursor{"http://ada/": c, "http://bob/": {Agent: "bob"}}
	var kinds []string
	for tick := 0; tick < 14; tick++ {
		if tick < 10 {
			c.RecordFailure(now, "connection refused")
		} else {
			c.RecordSuccess(now)
		}
		for _, e := range h.observe(cursors, 1, 0, now) {
			kinds = append(kinds, e.Kind+":"+e.Peer)
		}
		if tick == 5 {
			if got := h.degraded(); len(got) != 1 || got[0] != "ada" {
				t.Fatalf("degraded at tick 5 = %v, want [ada]", got)
			}
		}
	}
	want := []string{"degraded:ada", "recovered:ada"}
	if len(kinds) != 2 || kinds[0] != want[0] || kinds[1] != want[1] {
		t.Fatalf("notices = %v, want %v", kinds, want)
	}
}

func TestHealthNetworkDegradesWhenMostPeersFailAtOnce(t *testing.T) {
	tests := []struct {
		name  string
		ticks [][2]int // polled, failed
		want  []string
	}{
		{"one peer is not the network", [][2]int{{1, 1}, {1, 1}}, nil},
		{"most fail, then most answer", [][2]int{{4, 3}, {4, 4}, {4, 3}, {4, 1}, {4, 0}}, []string{EventDegraded, EventRecovered}},
		{"half failing is not most", [][2]int{{4, 2}}, nil},
		{"a tick polling nobody changes nothing", [][2]int{{3, 3}, {0, 0}, {3, 3}}, []string{EventDegraded}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h health
			var got []string
			for _, tk := range tt.ticks {
				for _, e := range h.observe(nil, tk[0], tk[1], time.Time{}) {
					got = append(got, e.Kind)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("notices = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("notices = %v, want %v", got, tt.want)
				}
			}
		})
	}
}
