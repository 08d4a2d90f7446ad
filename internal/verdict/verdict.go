package verdict

import (
	"regexp"
	"strconv"
	"strings"
)

// Result is what a judge said of a trace.
type Result string

// Results, from the words agents used: VALID, PARTIALLY VALID, INVALID
// (and "not valid"); a score out of 5, a "verified" status, a verdict
// that endorses a proposal ("Build It", "Accepted") or a response titled
// "… Validated" maps onto them.
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
	LayoutEndorsement, LayoutBareScore, LayoutTitle,
}

// Layout names.
const (
	LayoutVerdict    = "verdict"    // "Verdict: VALID", in a heading, bold or prose
	LayoutAssessment = "assessment" // "## Assessment: VALID with observations"
	LayoutBoldLead   = "bold-lead"  // a paragraph that opens "**VALID.**"
	LayoutDashSuffix = "dash"       // "**Some Title (seq 2) — PARTIALLY VALID.**"
	LayoutScore      = "score"      // "**Score: 5**" in a validation trace
	LayoutStatus     = "status"     // "**Status:** verified" in a validation trace
	// LayoutEndorsement is "## Verdict: Build It" (Build This, Ship Both,
	// Accepted…): a judge's verdict on a proposal, read as valid; "Verdict:
	// Rejected" as invalid. Other words ("Partially Correct") are not read.
	LayoutEndorsement = "endorsement"
	// LayoutBareScore is a paragraph opening "4/5." or "Score: 5." under a
	// heading named Validation, or under Work in a validation trace.
	LayoutBareScore = "bare-score"
	// LayoutTitle is a response whose title says the answered traces were
	// validated: "# Response: … — Validated", "Seven Traces Validated".
	LayoutTitle = "title"
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
	endorseRe    = regexp.MustCompile(`(?i)\bverdict\s*:?\**\s*:?\s*\**\s*(build (?:it|this|both)|ship (?:it|this|both)|accepted|approved|endorsed|rejected)\b`)
	bareScoreRe  = regexp.MustCompile(`(?i)^\**(?:score\s*:\s*\**\s*([0-9])\b(\s*/\s*(?:5|10)\b)?|([0-9])(\s*/\s*(?:5|10))\b)`)
	titleRe      = regexp.MustCompile(`(?i)\bvalidated\b`)
	notTitleRe   = regexp.MustCompile(`(?i)\b(?:not|un|never|yet to be|to be)\s+validated\b`)
	fieldRe      = regexp.MustCompile(`^\*{0,2}([A-Za-z][A-Za-z -]{0,30}?)\*{0,2}\s*:\s*\*{0,2}\s*(.*)$`)
	possessiveRe = regexp.MustCompile(`(?i)\b([a-z][a-z0-9_-]{1,40})['’]s traces?\b`)
)

// Find returns the verdicts in a trace's text, in the order written. Text
// in code blocks and table rows is not read: agents quote API payloads and
// tabulate other things there.
func Find(text []byte) []Verdict {
	d := newDoc(splitLines(string(text)))
	var out []Verdict
	titled := false
	for i, l := range d.lines {
		if l.code {
			continue
		}
		v, ok := d.verdictAt(i)
		if ok {
			out = append(out, v)
		}
		if level, _ := heading(l.text); level == 1 && !titled {
			titled = true
			if !ok {
				out = append(out, d.titleVerdicts(i)...)
			}
		}
		d.enter(i)
	}
	return out
}

// titleVerdicts reads a response's title, line i, that says the traces it
// answers were validated: one verdict for each answered trace.
func (d *doc) titleVerdicts(i int) []Verdict {
	t := d.lines[i].text
	if !d.response || !titleRe.MatchString(t) || notTitleRe.MatchString(t) {
		return nil
	}
	var out []Verdict
	for _, r := range d.answered {
		out = append(out, Verdict{Agent: r.agent, Seq: r.seq, Result: Valid, Line: i + 1, Layout: LayoutTitle})
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
	layout, word, col := d.marker(i)
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
func (d *doc) marker(i int) (string, Result, int) {
	t := d.lines[i].text
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
	if m := endorseRe.FindStringSubmatchIndex(t); m != nil {
		return LayoutEndorsement, resultOfEndorsement(t[m[2]:m[3]]), m[0]
	}
	if d.validation {
		if m := scoreRe.FindStringSubmatch(t); m != nil {
			return LayoutScore, resultOfScore(m[1], m[2]), 0
		}
		if statusRe.MatchString(t) {
			return LayoutStatus, Valid, 0
		}
	}
	return d.bareScore(i)
}

// bareScore reads "4/5." or "Score: 5." opening a paragraph in a
// validation section.
func (d *doc) bareScore(i int) (string, Result, int) {
	if !d.inValidationSection() || !d.opensParagraph(i) {
		return "", "", 0
	}
	m := bareScoreRe.FindStringSubmatch(d.lines[i].text)
	switch {
	case m == nil:
		return "", "", 0
	case m[1] != "":
		return LayoutBareScore, resultOfScore(m[1], m[2]), 0
	default:
		return LayoutBareScore, resultOfScore(m[3], m[4]), 0
	}
}

// inValidationSection reports whether the deepest open heading is named
// Validation, or Work in a validation trace: where a judge writes a bare
// score.
func (d *doc) inValidationSection() bool {
	s := d.section()
	return strings.HasPrefix(s, "validation") || (d.validation && s == "work")
}

// opensParagraph reports whether line i is the first of a paragraph.
func (d *doc) opensParagraph(i int) bool {
	if i == 0 {
		return true
	}
	prev := d.lines[i-1].text
	level, _ := heading(prev)
	return prev == "" || level > 0
}

func resultOfEndorsement(word string) Result {
	if strings.EqualFold(word, "rejected") {
		return Invalid
	}
	return Valid
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
