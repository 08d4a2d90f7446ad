package logpin

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestRepinKeepsTheLastResolvedAlarms re-pins a peer past alarm after
// alarm: the pin keeps the last KeepResolved, oldest first, each with
// the time it was re-pinned past, and they load back as saved.
func TestRepinKeepsTheLastResolvedAlarms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-pins.json")
	ps, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	const u = "https://peer.example/mesh/"
	start := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	const alarms = KeepResolved + 5
	for i := range alarms {
		at := start.Add(time.Duration(i) * time.Hour)
		var resolved []Alarm
		if p := ps.Get(u); p != nil {
			resolved = p.Resolved
		}
		ps.Put(&Pin{URL: u, Key: "k", Alarm: &Alarm{Kind: AlarmFork, Detail: fmt.Sprintf("alarm %d", i), At: at}, Resolved: resolved})
		if ps.Repin(u, at.Add(time.Minute)) == nil {
			t.Fatalf("repin %d: no pin", i)
		}
	}
	if _, err := ps.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := again.Get(u).Resolved
	if len(got) != KeepResolved {
		t.Fatalf("%d alarms re-pinned past, %d kept, want %d", alarms, len(got), KeepResolved)
	}
	for i, a := range got {
		n := alarms - KeepResolved + i
		at := start.Add(time.Duration(n) * time.Hour)
		if a.Detail != fmt.Sprintf("alarm %d", n) || !a.At.Equal(at) || !a.Resolved.Equal(at.Add(time.Minute)) {
			t.Fatalf("resolved alarm %d: %+v, want alarm %d re-pinned at %s", i, a, n, at.Add(time.Minute))
		}
	}
}
