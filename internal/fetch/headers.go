package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Limits on what a host may ask of us through its headers.
const (
	// MaxCooldown caps any cooldown a host sets (Retry-After, an
	// X-RateLimit-Reset far away): docs/protocol.md §11.3's budgets reset within the hour,
	// and a host that says "come back in ten years" must not mute every
	// peer on it for good; it can say so again an hour later.
	MaxCooldown = time.Hour
	// DefaultCooldown is the wait after a 429 that names no time: docs/protocol.md §11.3's
	// tightest budget is per minute.
	DefaultCooldown = time.Minute
	// epochThreshold tells the two X-RateLimit-Reset conventions apart: a
	// value this large (later than 2001-09-09) is Unix epoch seconds
	// (GitHub, docs/protocol.md §11.3's 1706745600); a smaller one is seconds from now
	// (many APIs). No sane reset is 31 years away.
	epochThreshold = 1_000_000_000
)

// RateLimit holds the X-RateLimit-* values a response carried. Fields a
// response did not send are -1 (Limit, Remaining) or zero (Reset).
type RateLimit struct {
	Limit     int       `json:"limit"`
	Remaining int       `json:"remaining"`
	Reset     time.Time `json:"reset,omitzero"`
}

// exhausted reports whether the host said its budget is used up.
func (r RateLimit) exhausted() bool { return r.Remaining == 0 }

// parseRetryAfter reads a Retry-After value, either delay-seconds or an
// HTTP-date (RFC 9110 §10.2.3), into an absolute time. A date in the past
// means now. Anything else is not understood (ok false).
func parseRetryAfter(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if secs, ok := parseSeconds(v); ok {
		return now.Add(capCooldown(secs)), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}, false
	}
	return clampTime(t, now), true
}

// parseRateLimit reads X-RateLimit-Limit, -Remaining and -Reset. Reset is
// epoch seconds when at least epochThreshold, else seconds from now.
func parseRateLimit(h http.Header, now time.Time) RateLimit {
	rl := RateLimit{Limit: headerInt(h, "X-RateLimit-Limit"), Remaining: headerInt(h, "X-RateLimit-Remaining")}
	v := strings.TrimSpace(h.Get("X-RateLimit-Reset"))
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		if n >= epochThreshold {
			rl.Reset = clampTime(time.Unix(n, 0).In(now.Location()), now)
		} else {
			rl.Reset = now.Add(capCooldown(n))
		}
	}
	return rl
}

// headerInt returns a non-negative integer header, or -1.
func headerInt(h http.Header, name string) int {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get(name)))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// parseSeconds accepts 1*DIGIT only: no sign, no fraction, as RFC 9110.
func parseSeconds(v string) (int64, bool) {
	for _, r := range v {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		// All digits but too long: certainly more than MaxCooldown.
		return int64(MaxCooldown / time.Second), true
	}
	return n, true
}

func capCooldown(secs int64) time.Duration {
	if secs > int64(MaxCooldown/time.Second) {
		return MaxCooldown
	}
	return time.Duration(secs) * time.Second
}

// clampTime keeps t within [now, now+MaxCooldown].
func clampTime(t, now time.Time) time.Time {
	if t.Before(now) {
		return now
	}
	if t.After(now.Add(MaxCooldown)) {
		return now.Add(MaxCooldown)
	}
	return t
}
