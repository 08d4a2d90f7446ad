package verdict

import (
	"regexp"
	"strconv"
	"strings"
)

// Result is what a judge said of a trace.
type Result string

// Results, from the words agents used: VALID, PARTIALLY VALID, INVALID
// (and "not valid"); a score out of 5 or a "verified" status maps onto
// them.
const (
	Valid   Result = "valid"
	Partial Result = "partial"
	Invalid Result = "invalid"
)

// Verdict is one judgement found in a trace.
type Verdict struct {
	Agent  string // the judged trace's author, lowercased
	Seq    int    // the number the judge cited: the author's trace number
	Result Result
	Line   int    // 1-based line of the verdict word
	Layout string // which layout it was written in (see Layouts)
}

// Layouts names the ways of writing a verdict that Find reads.
var Layouts = []string{
	LayoutVerdict, LayoutAssessment, LayoutBoldLead, LayoutDashSuffix, LayoutScore, LayoutStatus,
}

// Layout names.
const (
	LayoutVerdict    = "verdict"    // "Verdict: VALID", in a heading, bold or prose
	LayoutAssessment = "assessment" // "## Assessment: VALID with observations"
	LayoutBoldLead   = "bold-lead"  // a paragraph that opens "**VALID.**"
	LayoutDashSuffix = "dash"       // "**Some Title (seq 2) — PARTIALLY VALID.**"
	LayoutScore      = "score"      // "**Score: 5**" in a validation trace
	LayoutStatus     = "status"     // "**Status:** verified" in a validation trace
)

// minValidScore is the lowest "Score: N" (out of 5) read as valid, and
// minPartialScore the lowest read as partially valid: the mesh's
// validations score 1–5 and its judges wrote 5 for "validated".
const (
	minValidScore   = 4
	minPartialScore = 3
)

var (
	resultWord   = `(partially valid|not valid|invalid|valid)\b`
	verdictRe    = regexp.MustCompile(`(?i)\bverdict\s*:?\**\s*:?\s*\**\s*` + resultWord)
	assessmentRe = regexp.MustCompile(`(?i)^#{1,6}\s+assessment\s*:\s*\**\s*` + resultWord)
	boldLeadRe   = regexp.MustCompile(`(?i)^\*\*` + resultWord)
	dashRe       = regexp.MustCompile(`(?i)\s[—–-]{1,2}\s*` + resultWord + `[.!]?\*\*`)
	scoreRe      = regexp.MustCompile(`(?i)^(?:#{1,6}\s+|\*\*)score\s*:\s*\**\s*([0-9])\b(\s*/\s*[0-9]+)?`)
	statusRe     = regexp.MustCompile(`(?i)^\*{0,2}status\s*:\s*\**\s*verified\b`)
	fieldRe      = regexp.MustCompile(`^\*{0,2}([A-Za-z][A-Za-z -]{0,30}?)\*{0,2}\s*:\s*\*{0,2}\s*(.*)$`)
	possessiveRe = regexp.MustCompile(`(?i)\b([a-z][a-z0-9_-]{1,40})['’]s traces?\b`)
)

// Find returns the verdicts in a trace's text, in the order written. Text
// in code blocks and table rows is not read: agents quote API payloads and
// tabulate other things there.
func Find(text []byte) []Verdict {
	d := newDoc(splitLines(string(text)))
	var out []Verdict
	for i, l := range d.lines {
		if l.code {
			continue
		}
		if v, ok := d.verdictAt(i); ok {
			out = append(out, v)
		}
		d.enter(i)
	}
	return out
}

// line is one line of the text and whether it sits in a code block.
type line struct {
	text string
	code bool
}

func splitLines(s string) []line {
	var out []line
	fence := ""
	for _, t := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		trim := strings.TrimSpace(t)
		if m := fenceOf(trim); m != "" && (fence == "" || strings.HasPrefix(trim, fence)) {
			if fence == "" {
				fence = m
			} else {
				fence = ""
			}
			out = append(out, line{text: trim, code: true})
			continue
		}
		out = append(out, line{text: trim, code: fence != ""})
	}
	return out
}

func fenceOf(s string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(s, f) {
			return f
		}
	}
	return ""
}

// verdictAt reads the verdict on line i, if there is one and it names the
// trace it judges.
func (d *doc) verdictAt(i int) (Verdict, bool) {
	t := d.lines[i].text
	if strings.HasPrefix(t, "|") {
		return Verdict{}, false
	}
	layout, word, col := d.marker(t)
	if layout == "" {
		return Verdict{}, false
	}
	r := d.subject(i, col)
	if !r.ok() {
		return Verdict{}, false
	}
	return Verdict{Agent: r.agent, Seq: r.seq, Result: word, Line: i + 1, Layout: layout}, true
}

// marker finds a verdict word in t and says in which layout, and the
// column where the marker starts (a reference before it names the trace).
func (d *doc) marker(t string) (string, Result, int) {
	if m := assessmentRe.FindStringSubmatchIndex(t); m != nil {
		return LayoutAssessment, resultOf(t[m[2]:m[3]]), m[0]
	}
	if m := verdictRe.FindStringSubmatchIndex(t); m != nil {
		return LayoutVerdict, resultOf(t[m[2]:m[3]]), m[0]
	}
	if m := boldLeadRe.FindStringSubmatchIndex(t); m != nil {
		return LayoutBoldLead, resultOf(t[m[2]:m[3]]), m[0]
	}
	if m := dashRe.FindStringSubmatchIndex(t); m != nil && strings.HasPrefix(t, "**") {
		return LayoutDashSuffix, resultOf(t[m[2]:m[3]]), m[0]
	}
	if !d.validation {
		return "", "", 0
	}
	if m := scoreRe.FindStringSubmatch(t); m != nil {
		return LayoutScore, resultOfScore(m[1], m[2]), 0
	}
	if statusRe.MatchString(t) {
		return LayoutStatus, Valid, 0
	}
	return "", "", 0
}

func resultOf(word string) Result {
	switch strings.ToLower(word) {
	case "valid":
		return Valid
	case "partially valid":
		return Partial
	default:
		return Invalid
	}
}

// resultOfScore maps "Score: N" or "Score: N/M" onto the 1–5 scale.
func resultOfScore(n, outOf string) Result {
	v, _ := strconv.Atoi(n)
	scale := 5
	if m, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(outOf), "/"))); err == nil && m > 0 {
		scale = m
	}
	switch {
	case v*5 >= minValidScore*scale:
		return Valid
	case v*5 >= minPartialScore*scale:
		return Partial
	default:
		return Invalid
	}
}
