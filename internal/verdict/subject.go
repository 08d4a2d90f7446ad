package verdict

import (
	"regexp"
	"strings"
)

// doc is what Find knows about the trace it reads: which trace the whole
// document judges, and which trace each open heading names.
type doc struct {
	lines      []line
	title      string // the first "# " heading's text
	validation bool   // a validation trace: "Validation…" title or type validation
	docRef     ref    // Validates:, else the title's reference, else In Response To:
	owner      string // "axon37" of a title "Validation of axon37's Traces", for "(seq N)"
	headings   [7]ref // the reference each open heading level names
	// sections are the open headings' texts, lowercased, by level.
	sections [7]string
	// answered are the traces a response answers: its In Response To:
	// field, ranges such as agent/156-162 expanded, else the first trace
	// its Cites: field names when it is a response.
	answered []ref
	response bool // a response: "Response:" title, type response, or In Response To:
}

// fieldRe is a "Field: value" line, bold or not; possessiveRe the owner
// a title names ("Validation of axon37's Traces").
var (
	fieldRe      = regexp.MustCompile(`^\*{0,2}([A-Za-z][A-Za-z -]{0,30}?)\*{0,2}\s*:\s*\*{0,2}\s*(.*)$`)
	possessiveRe = regexp.MustCompile(`(?i)\b([a-z][a-z0-9_-]{1,40})['’]s traces?\b`)
)

func newDoc(lines []line) *doc {
	d := &doc{lines: lines}
	var title string
	var validates, inResponse, cites ref
	var inResponseAll []ref
	for _, l := range lines {
		if l.code {
			continue
		}
		if level, text := heading(l.text); level == 1 && title == "" {
			title = text
			continue
		}
		if !strings.Contains(l.text, ":") {
			continue // no field: spared the regular expression
		}
		m := fieldRe.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		switch key := strings.ToLower(strings.TrimSpace(m[1])); key {
		case "validates":
			if !validates.ok() {
				validates = firstRef(m[2], "")
			}
		case "in response to", "in-response-to":
			if !inResponse.ok() {
				inResponse = firstRef(m[2], "")
				inResponseAll = allRefs(m[2])
				d.response = true
			}
		case "cites":
			if !cites.ok() {
				cites = firstRef(m[2], "")
			}
		case "type":
			switch strings.ToLower(strings.Trim(strings.TrimSpace(m[2]), "*")) {
			case "validation":
				d.validation = true
			case "response":
				d.response = true
			}
		}
	}
	low := strings.ToLower(title)
	d.title = title
	if strings.HasPrefix(strings.TrimPrefix(low, "trace: "), "response:") {
		d.response = true
	}
	d.answered = inResponseAll
	if len(d.answered) == 0 && d.response && cites.ok() {
		d.answered = []ref{cites}
	}
	if strings.HasPrefix(strings.TrimPrefix(low, "trace: "), "validat") {
		d.validation = true
	}
	if m := possessiveRe.FindStringSubmatch(title); m != nil {
		d.owner = strings.ToLower(m[1])
	}
	d.docRef = validates
	if !d.docRef.ok() {
		d.docRef = firstRef(title, d.owner)
	}
	if !d.docRef.ok() && d.validation {
		d.docRef = inResponse
	}
	return d
}

// enter updates the open headings after line i.
func (d *doc) enter(i int) {
	level, text := heading(d.lines[i].text)
	if level == 0 {
		return
	}
	d.headings[level] = firstRef(text, d.owner)
	d.sections[level] = strings.ToLower(text)
	for l := level + 1; l < len(d.headings); l++ {
		d.headings[l] = ref{}
		d.sections[l] = ""
	}
}

// section is the text of the deepest open heading, lowercased, or "".
func (d *doc) section() string {
	for l := len(d.sections) - 1; l >= 1; l-- {
		if d.sections[l] != "" {
			return d.sections[l]
		}
	}
	return ""
}

// subject is the trace a verdict at line i, column col, is about: a
// reference earlier on the same line, else the deepest open heading's
// (above the line's own level when it is a heading), else the document's.
func (d *doc) subject(i, col int) ref {
	t := d.lines[i].text
	if r := firstRef(t[:col], d.owner); r.ok() {
		return r
	}
	top := len(d.headings)
	if level, _ := heading(t); level > 0 {
		top = level
	}
	for l := top - 1; l >= 1; l-- {
		if d.headings[l].ok() {
			return d.headings[l]
		}
	}
	if !d.docRef.ok() && len(d.answered) > 0 {
		return d.answered[0]
	}
	return d.docRef
}

// heading returns a markdown heading's level and text, or 0.
func heading(s string) (int, string) {
	level := len(s) - len(strings.TrimLeft(s, "#"))
	if level == 0 || level > 6 || len(s) == level || s[level] != ' ' {
		return 0, ""
	}
	return level, strings.TrimSpace(s[level:])
}
