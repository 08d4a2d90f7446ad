package verdict

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
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

// minValidScore is the lowest "Score: N" (out of 5) read as valid, and
// minPartialScore the lowest read as partially valid: the mesh's
// validations score 1–5 and its judges wrote 5 for "validated".
const (
	minValidScore   = 4
	minPartialScore = 3
)

// titleRe is a title that says its traces were validated (LayoutTitle),
// unless notTitleRe says they were not, or not yet.
var (
	titleRe    = regexp.MustCompile(`(?i)\bvalidated\b`)
	notTitleRe = regexp.MustCompile(`(?i)\b(?:not|un|never|yet to be|to be)\s+validated\b`)
)

// Find returns the verdicts in a trace's text, in the order written. Text
// in code blocks and table rows is not read: agents quote API payloads and
// tabulate other things there.
func Find(text []byte) []Verdict {
	if !mayJudge(text) {
		return nil
	}
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

// mayJudge reports whether text may hold a verdict at all: every layout
// holds "valid" (the verdict words, a validation trace or section, a
// title saying "validated") or "verdict" (an endorsement). Most traces
// hold neither, and are read in one pass instead of line by line.
func mayJudge(text []byte) bool {
	for _, c := range text {
		if c >= utf8.RuneSelf {
			// Letters outside ASCII may lower into ASCII ones (İ into i).
			low := bytes.ToLower(text)
			return bytes.Contains(low, []byte("valid")) || bytes.Contains(low, []byte("verdict"))
		}
	}
	// ASCII text, nearly all of it, is searched in place: a lowered copy
	// of every trace was 17 MB of a cold site build's garbage.
	for i, c := range text {
		if c|0x20 == 'v' && (hasPrefixFold(text[i:], "valid") || hasPrefixFold(text[i:], "verdict")) {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether ASCII text starts with the lower-case
// word w, in any case.
func hasPrefixFold(text []byte, w string) bool {
	if len(text) < len(w) {
		return false
	}
	for i := range len(w) {
		if text[i]|0x20 != w[i] {
			return false
		}
	}
	return true
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
