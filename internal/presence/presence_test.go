package presence

import (
	"testing"
	"time"
)

var now = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) time.Time { return now.Add(-d) }

func TestThresholds(t *testing.T) {
	if ActiveFor != 150*time.Minute || OfflineAfter != 7*24*time.Hour || RefreshAfter != 75*time.Minute || Skew != 30*time.Minute {
		t.Fatalf("active %v offline %v refresh %v skew %v", ActiveFor, OfflineAfter, RefreshAfter, Skew)
	}
}

func TestClassify(t *testing.T) {
	polled := ago(10 * time.Minute)
	reached := func(in Input) Input { in.Polled, in.LastSuccess = true, polled; return in }
	tests := []struct {
		name     string
		in       Input
		want     Presence
		evidence time.Time
		source   Source
	}{
		{"breaker says unreachable, even with a fresh heartbeat", reached(Input{Updated: ago(time.Minute), Unreachable: true}), Unreachable, ago(time.Minute), FromHeader},
		{"polled and never reached", Input{Polled: true, FirstFailure: ago(time.Hour)}, Unreachable, time.Time{}, FromNone},
		{"never polled", Input{Updated: ago(time.Minute)}, Unknown, time.Time{}, FromNone},
		{"updated just now", reached(Input{Updated: ago(time.Minute)}), Active, ago(time.Minute), FromHeader},
		{"updated just under 150 minutes", reached(Input{Updated: ago(ActiveFor - time.Second)}), Active, ago(ActiveFor - time.Second), FromHeader},
		{"updated 150 minutes ago is stale", reached(Input{Updated: ago(ActiveFor)}), Stale, ago(ActiveFor), FromHeader},
		{"a week is still stale", reached(Input{Updated: ago(OfflineAfter)}), Stale, ago(OfflineAfter), FromHeader},
		{"past a week is offline", reached(Input{Updated: ago(OfflineAfter + time.Second)}), Offline, ago(OfflineAfter + time.Second), FromHeader},
		{"an old header and yesterday's entry: the entry counts", reached(Input{Updated: ago(17 * 24 * time.Hour), NewestEntry: ago(19 * time.Hour)}), Stale, ago(19 * time.Hour), FromEntry},
		{"a fresh header and an old entry: the header counts", reached(Input{Updated: ago(time.Hour), NewestEntry: ago(30 * 24 * time.Hour)}), Active, ago(time.Hour), FromHeader},
		{"rows and no header", reached(Input{NewestEntry: ago(time.Hour)}), Active, ago(time.Hour), FromEntry},
		{"no evidence at all", reached(Input{}), Offline, time.Time{}, FromNone},
		{"a time within the skew counts as now", reached(Input{Updated: now.Add(Skew)}), Active, now, FromHeader},
		{"a time beyond the skew is no evidence", reached(Input{Updated: now.Add(Skew + time.Second), NewestEntry: ago(9 * 24 * time.Hour)}), Offline, ago(9 * 24 * time.Hour), FromEntry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.in, now)
			if got.Presence != tt.want || !got.Evidence.Equal(tt.evidence) || got.Source != tt.source {
				t.Fatalf("Classify = %s from %s %v, want %s from %s %v", got.Presence, got.Source, got.Evidence, tt.want, tt.source, tt.evidence)
			}
		})
	}
}

func TestNewestIgnoresTimesBeyondTheSkew(t *testing.T) {
	times := []time.Time{ago(48 * time.Hour), {}, now.Add(24 * 365 * time.Hour), ago(3 * time.Hour), now.Add(time.Minute)}
	if got := Newest(times, now); !got.Equal(now) {
		t.Fatalf("Newest = %v, want now (a minute ahead counts as now)", got)
	}
	if got := Newest(times[:4], now); !got.Equal(ago(3 * time.Hour)) {
		t.Fatalf("Newest = %v, want 3 hours ago (2027 is no evidence)", got)
	}
	if got := Newest(nil, now); !got.IsZero() {
		t.Fatalf("Newest(nil) = %v, want zero", got)
	}
}

func TestWordsStateTheEvidence(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"never polled", Input{}, "not reached yet"},
		{"never reached", Input{Polled: true, FirstFailure: time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)}, "failing since 2026-03-01 09:30 UTC, never reached"},
		{"breaker after success", Input{Polled: true, LastSuccess: ago(40 * 24 * time.Hour), Unreachable: true, FirstFailure: ago(31 * 24 * time.Hour), NewestEntry: ago(41 * 24 * time.Hour)}, "failing since 2026-02-12 12:00 UTC, last published 2026-02-02 12:00 UTC"},
		{"published yesterday, answered just now", Input{Polled: true, LastSuccess: now, Updated: ago(17 * 24 * time.Hour), NewestEntry: time.Date(2026, 3, 14, 4, 50, 52, 0, time.UTC)}, "last published 2026-03-14 04:50 UTC"},
		{"a beating node", Input{Polled: true, LastSuccess: now, Updated: ago(time.Hour)}, "manifest updated 2026-03-15 11:00 UTC"},
		{"an empty manifest", Input{Polled: true, LastSuccess: now}, "no dated entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.in, now).Words(); got != tt.want {
				t.Fatalf("Words = %q, want %q", got, tt.want)
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
