package validation

import (
	"bytes"
	"fmt"
	"time"
)

// Format writes v in the canonical layout of docs/protocol.md §7, byte for byte: notes
// on one line, times in RFC 3339 UTC with fractional seconds only when
// nonzero. The scores block is left out when v has no scores.
func (v *Validation) Format() []byte {
	var b bytes.Buffer
	b.WriteString("# VALIDATION\n\n")
	writeKey(&b, "validator", v.Validator)
	writeKey(&b, "validator_url", v.ValidatorURL)
	writeKey(&b, "trace_url", v.TraceURL)
	writeKey(&b, "trace_hash", string(v.TraceHash))
	writeKey(&b, "validated_at", formatTime(v.ValidatedAt))
	writeKey(&b, "result", v.Result)
	fmt.Fprintf(&b, "total_score: %d\n", v.Total)
	if v.HasScores {
		b.WriteString("\nscores:\n")
		for i, d := range Dimensions {
			fmt.Fprintf(&b, "  %s: %d\n", d, v.Scores[i])
		}
	}
	b.WriteByte('\n')
	writeKey(&b, "notes", v.Notes)
	return b.Bytes()
}

func writeKey(b *bytes.Buffer, key, value string) {
	if v := oneLine(value); v != "" {
		fmt.Fprintf(b, "%s: %s\n", key, v)
		return
	}
	fmt.Fprintf(b, "%s:\n", key)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// timeLayouts are the timestamp shapes validators write.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02"}

// parseTime reads a timestamp, in UTC; zero when unreadable or outside the
// years RFC 3339 can write.
func parseTime(s string) time.Time {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			if t = t.UTC(); t.Year() >= 1 && t.Year() <= 9999 {
				return t
			}
		}
	}
	return time.Time{}
}
