package presence

import (
	"strings"
	"time"
)

// timeLayout writes evidence times: to the minute, in UTC, with no age
// relative to now, so that a page or a listing of the same files reads the
// same whenever it is made.
const timeLayout = "2006-01-02 15:04 UTC"

// Words says what a judgement rests on, for a person: "last published
// 2026-03-14 04:50 UTC", "manifest updated …", "not reached yet",
// "failing since …, never reached", "no dated entry". It never repeats the presence
// word, which a listing shows beside it.
func (j Judgement) Words() string {
	switch j.Presence {
	case Unknown:
		return "not reached yet"
	case Unreachable:
		var parts []string
		if !j.Since.IsZero() {
			parts = append(parts, "failing since "+stamp(j.Since))
		}
		switch {
		case !j.Reached:
			parts = append(parts, "never reached")
		case !j.Evidence.IsZero():
			parts = append(parts, j.evidenceWords())
		}
		return strings.Join(parts, ", ")
	}
	if j.Evidence.IsZero() {
		return "no dated entry"
	}
	return j.evidenceWords()
}

func (j Judgement) evidenceWords() string {
	if j.Source == FromHeader {
		return "manifest updated " + stamp(j.Evidence)
	}
	return "last published " + stamp(j.Evidence)
}

func stamp(t time.Time) string { return t.UTC().Format(timeLayout) }
