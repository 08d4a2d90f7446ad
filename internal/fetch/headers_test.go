package fetch

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

var headerNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		value  string
		want   time.Time
		wantOK bool
	}{
		{"seconds", "120", headerNow.Add(2 * time.Minute), true},
		{"zero seconds", "0", headerNow, true},
		{"spaces trimmed", "  5 ", headerNow.Add(5 * time.Second), true},
		{"seconds past the cap", "999999", headerNow.Add(MaxCooldown), true},
		{"digits overflowing int64", "99999999999999999999999", headerNow.Add(MaxCooldown), true},
		{"IMF-fixdate", "Sun, 01 Mar 2026 12:30:00 GMT", headerNow.Add(30 * time.Minute), true},
		{"RFC 850 date", "Sunday, 01-Mar-26 12:10:00 GMT", headerNow.Add(10 * time.Minute), true},
		{"asctime date", "Sun Mar  1 12:05:00 2026", headerNow.Add(5 * time.Minute), true},
		{"date in the past means now", "Sun, 01 Mar 2026 11:00:00 GMT", headerNow, true},
		{"negative", "-5", time.Time{}, false},
		{"fraction", "1.5", time.Time{}, false},
		{"plus sign", "+5", time.Time{}, false},
		{"empty", "", time.Time{}, false},
		{"garbage", "soon", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseRetryAfter(tt.value, headerNow)
			if ok != tt.wantOK || !got.Equal(tt.want) {
				t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestParseRateLimit(t *testing.T) {
	tests := []struct {
		name                    string
		limit, remaining, reset string
		want                    RateLimit
	}{
		{"none sent", "", "", "", RateLimit{Limit: -1, Remaining: -1}},
		{"docs/protocol.md §11.3 epoch reset", "100", "85", strconv.FormatInt(headerNow.Add(40*time.Second).Unix(), 10), RateLimit{100, 85, headerNow.Add(40 * time.Second)}},
		{"seconds-from-now reset", "60", "0", "30", RateLimit{60, 0, headerNow.Add(30 * time.Second)}},
		{"epoch in the past means now", "60", "0", "1706745600", RateLimit{60, 0, headerNow}},
		{"far epoch is capped", "60", "0", strconv.FormatInt(headerNow.Add(72*time.Hour).Unix(), 10), RateLimit{60, 0, headerNow.Add(MaxCooldown)}},
		{"garbage ignored", "lots", "-1", "tomorrow", RateLimit{Limit: -1, Remaining: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range map[string]string{"X-RateLimit-Limit": tt.limit, "X-RateLimit-Remaining": tt.remaining, "X-RateLimit-Reset": tt.reset} {
				if v != "" {
					h.Set(k, v)
				}
			}
			if got := parseRateLimit(h, headerNow); got != tt.want {
				t.Errorf("parseRateLimit = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "-1", "1.5", "Sun, 01 Mar 2026 12:30:00 GMT", "Sunday, 01-Mar-26 12:10:00 GMT", "Sun Mar  1 12:05:00 2026", "99999999999999999999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := parseRetryAfter(v, headerNow)
		if !ok {
			return
		}
		if got.Before(headerNow) || got.After(headerNow.Add(MaxCooldown)) {
			t.Fatalf("parseRetryAfter(%q) = %v, outside [now, now+MaxCooldown]", v, got)
		}
		// Written back as seconds, it must read the same.
		secs := strconv.FormatInt(int64(got.Sub(headerNow)/time.Second), 10)
		again, ok := parseRetryAfter(secs, headerNow)
		if !ok || !again.Equal(got.Truncate(time.Second)) {
			t.Fatalf("round trip of %q via %q: %v, %v; want %v", v, secs, again, ok, got)
		}
	})
}

func FuzzParseRateLimit(f *testing.F) {
	f.Add("100", "85", "1706745600")
	f.Add("60", "0", "30")
	f.Add("", "", "")
	f.Add("x", "-3", "99999999999999999999")
	f.Fuzz(func(t *testing.T, limit, remaining, reset string) {
		h := http.Header{}
		h.Set("X-RateLimit-Limit", limit)
		h.Set("X-RateLimit-Remaining", remaining)
		h.Set("X-RateLimit-Reset", reset)
		rl := parseRateLimit(h, headerNow)
		if rl.Limit < -1 || rl.Remaining < -1 {
			t.Fatalf("negative counts from %q %q: %+v", limit, remaining, rl)
		}
		if !rl.Reset.IsZero() && (rl.Reset.Before(headerNow) || rl.Reset.After(headerNow.Add(MaxCooldown))) {
			t.Fatalf("Reset %v from %q outside [now, now+MaxCooldown]", rl.Reset, reset)
		}
		if rl.exhausted() && !rateLimitUntil(rl, headerNow).After(headerNow.Add(-time.Nanosecond)) {
			t.Fatalf("exhausted budget ends in the past")
		}
	})
}
