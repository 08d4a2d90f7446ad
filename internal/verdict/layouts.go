package verdict

import (
	"regexp"
	"strings"
)

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

// The markers of the layouts, each ending on a verdict word (resultWord)
// or a score.
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
)

// marker finds a verdict word in t and says in which layout, and the
// column where the marker starts (a reference before it names the trace).
func (d *doc) marker(i int) (string, Result, int) {
	t := d.lines[i].text
	// Every verdict word holds "valid", and the verdict and endorsement
	// layouts hold "verdict": a line with neither is passed by their
	// regular expressions without running them, which is most lines of
	// every trace and was most of the time Find took.
	low := strings.ToLower(t)
	valid, named := strings.Contains(low, "valid"), strings.Contains(low, "verdict")
	if valid {
		if m := assessmentRe.FindStringSubmatchIndex(t); m != nil {
			return LayoutAssessment, resultOf(t[m[2]:m[3]]), m[0]
		}
		if m := verdictRe.FindStringSubmatchIndex(t); named && m != nil {
			return LayoutVerdict, resultOf(t[m[2]:m[3]]), m[0]
		}
		if m := boldLeadRe.FindStringSubmatchIndex(t); m != nil {
			return LayoutBoldLead, resultOf(t[m[2]:m[3]]), m[0]
		}
		if strings.HasPrefix(t, "**") {
			if m := dashRe.FindStringSubmatchIndex(t); m != nil {
				return LayoutDashSuffix, resultOf(t[m[2]:m[3]]), m[0]
			}
		}
	}
	if named {
		if m := endorseRe.FindStringSubmatchIndex(t); m != nil {
			return LayoutEndorsement, resultOfEndorsement(t[m[2]:m[3]]), m[0]
		}
	}
	return d.scoreMarker(i)
}

// scoreMarker reads the layouts that give a score or a status rather than
// a verdict word.
func (d *doc) scoreMarker(i int) (string, Result, int) {
	t := d.lines[i].text
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
