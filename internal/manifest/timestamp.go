package manifest

import (
	"fmt"
	"strings"
	"time"
)

// timeLayouts are the timestamp shapes peers write, tried in order: RFC 3339
// with and without fractional seconds, a space instead of "T", no zone (read
// as UTC), and a bare date.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
}

// ParseTime reads a timestamp as peers write it and returns it in UTC.
func ParseTime(s string) (time.Time, error) {
	v := strings.Trim(strings.TrimSpace(s), "`*")
	for _, layout := range timeLayouts {
		t, err := time.Parse(layout, v)
		if err != nil {
			continue
		}
		// A zone offset can carry year 9999 past the four digits RFC 3339
		// allows; such a time could not be written back.
		if t = t.UTC(); t.Year() < 1 || t.Year() > 9999 {
			return time.Time{}, fmt.Errorf("time %q: year out of range", clip(s))
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("time %q: not RFC 3339", clip(s))
}

// FormatTime writes t the canonical way: RFC 3339 in UTC, with fractional
// seconds only when they are nonzero. The zero time is written as "".
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
