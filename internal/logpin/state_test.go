package logpin

import (
	"strings"
	"testing"
	"time"
)

func TestStateWords(t *testing.T) {
	tree := []Tree{{Size: 2, Root: "AAA="}, {Size: 300, Root: "BBB="}}
	tests := []struct {
		name string
		pin  *Pin
		want string
	}{
		{"no pin", nil, StateManifest},
		{"pin without key", &Pin{URL: "u"}, StateManifest},
		{"verified", &Pin{URL: "u", Key: "k", Accepted: tree}, "log: 300 entries verified"},
		{"catching up", &Pin{URL: "u", Key: "k", Accepted: tree, Behind: 100}, "log: 200 of 300 entries read"},
		{"read from a mirror", &Pin{URL: "u", Key: "k", Accepted: tree, MirrorSince: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}, "log: 300 entries verified; origin down, read from a mirror since 2026-03-01 12:00 UTC"},
		{"verified, nothing accepted yet", &Pin{URL: "u", Key: "k"}, "log: 0 entries verified"},
		{"re-pinned", &Pin{URL: "u", Repin: true}, "re-pinned: "},
		{"fork", &Pin{URL: "u", Key: "k", Accepted: tree, Alarm: &Alarm{Kind: AlarmFork, Detail: "no proof"}}, "refused: fork (no proof); "},
		{"restart", &Pin{URL: "u", Key: "k", Alarm: &Alarm{Kind: AlarmRestart, Key: "k2", Size: 301}}, "waiting for its operator: the log restarted under the key k2 at size 301"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := State(tc.pin); !strings.HasPrefix(got, tc.want) {
				t.Errorf("State = %q, want %q…", got, tc.want)
			}
		})
	}
}
