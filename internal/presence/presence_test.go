package presence

import (
	"testing"
	"time"
)

var now = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) time.Time { return now.Add(-d) }

func TestThresholdsScaleSeedToMeshHeartbeat(t *testing.T) {
	if ActiveFor != 150*time.Minute || OfflineAfter != 450*time.Minute || RefreshAfter != 75*time.Minute {
		t.Fatalf("active %v offline %v refresh %v", ActiveFor, OfflineAfter, RefreshAfter)
	}
}

func TestClassify(t *testing.T) {
	polled := ago(10 * time.Minute)
	tests := []struct {
		name string
		in   Input
		want Presence
	}{
		{"breaker says unreachable, even with a fresh heartbeat", Input{Updated: ago(time.Minute), LastSuccess: polled, Unreachable: true}, Unreachable},
		{"never polled successfully", Input{Updated: ago(time.Minute)}, Offline},
		{"updated just now", Input{Updated: ago(time.Minute), LastSuccess: polled}, Active},
		{"updated just under 150 minutes", Input{Updated: ago(ActiveFor - time.Second), LastSuccess: polled}, Active},
		{"updated 150 minutes ago is stale", Input{Updated: ago(ActiveFor), LastSuccess: polled}, Stale},
		{"updated 450 minutes ago is still stale", Input{Updated: ago(OfflineAfter), LastSuccess: polled}, Stale},
		{"updated past 450 minutes is offline", Input{Updated: ago(OfflineAfter + time.Second), LastSuccess: polled}, Offline},
		{"no updated line: the manifest change counts", Input{ManifestChanged: ago(time.Hour), LastSuccess: polled}, Active},
		{"updated wins over a newer change", Input{Updated: ago(8 * time.Hour), ManifestChanged: ago(time.Minute), LastSuccess: polled}, Offline},
		{"no heartbeat at all", Input{LastSuccess: polled}, Offline},
		{"a heartbeat in the future counts as now", Input{Updated: now.Add(time.Hour), LastSuccess: polled}, Active},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.in, now); got != tt.want {
				t.Fatalf("Classify = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRefreshDue(t *testing.T) {
	tests := []struct {
		name    string
		updated time.Time
		want    bool
	}{
		{"never written", time.Time{}, true},
		{"one heartbeat old", ago(30 * time.Minute), false},
		{"two heartbeats old", ago(60 * time.Minute), false},
		{"75 minutes old", ago(75 * time.Minute), true},
		{"in the future", now.Add(time.Hour), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RefreshDue(tt.updated, now); got != tt.want {
				t.Fatalf("RefreshDue = %v, want %v", got, tt.want)
			}
		})
	}
}
