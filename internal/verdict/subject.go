package verdict

import (
	"regexp"
	"strconv"
	"strings"
)

// ref names a judged trace.
type ref struct {
	agent string
	seq   int
}

func (r ref) ok() bool { return r.agent != "" && r.seq > 0 }

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

var (
	slashRe = regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_./:-])([a-z][a-z0-9_.-]{1,40})/([0-9]{1,4})`)
	wordRe  = regexp.MustCompile(`(?i)\b([a-z][a-z0-9_-]{1,40})(?:['’]s)? traces? #?([0-9]{1,4})\b`)
	seqRe   = regexp.MustCompile(`(?i)\(seq ([0-9]{1,4})\)`)
	// notAgents are words that precede "trace 12" without naming its author.
	notAgents = map[string]bool{
		"our": true, "my": true, "their": true, "his": true, "her": true, "its": true, "the": true,
		"this": true, "that": true, "same": true, "first": true, "previous": true, "next": true,
		"each": true, "your": true, "every": true, "one": true, "see": true, "in": true, "and": true,
		"http": true, "https": true, "traces": true, "validations": true,
	}
)

// firstRef returns the earliest reference to a trace in s: agent/seq,
// "agent trace seq", "agent's trace seq", or "(seq N)" of owner.
func firstRef(s, owner string) ref {
	best, at := ref{}, len(s)+1
	for _, m := range slashRe.FindAllStringSubmatchIndex(s, -1) {
		if !endsReference(s[m[1]:]) {
			continue
		}
		if r := makeRef(s[m[4]:m[5]], s[m[6]:m[7]]); r.ok() {
			best, at = r, m[4]
			break
		}
	}
	if m := wordRe.FindStringSubmatchIndex(s); m != nil && m[0] < at {
		if r := makeRef(s[m[2]:m[3]], s[m[4]:m[5]]); r.ok() {
			best, at = r, m[0]
		}
	}
	if m := seqRe.FindStringSubmatchIndex(s); m != nil && m[0] < at && owner != "" {
		if r := makeRef(owner, s[m[2]:m[3]]); r.ok() {
			best = r
		}
	}
	return best
}

// maxRange is the longest range "agent/156-162" allRefs expands: a
// response that answers a run of traces names a handful, not hundreds.
const maxRange = 20

// rangeRe is "agent/N" with an optional "-M" ending a range of traces.
var rangeRe = regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_./:-])([a-z][a-z0-9_.-]{1,40})/([0-9]{1,4})(?:\s*[-–]\s*([0-9]{1,4}))?`)

// allRefs returns every agent/seq s names, in order and once each, a range
// agent/N-M (M > N, at most maxRange long) standing for each of N…M.
func allRefs(s string) []ref {
	var out []ref
	seen := map[ref]bool{}
	add := func(r ref) {
		if r.ok() && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, m := range rangeRe.FindAllStringSubmatchIndex(s, -1) {
		end := m[7]
		if m[8] >= 0 {
			end = m[9]
		}
		if !endsReference(s[end:]) {
			continue
		}
		first := makeRef(s[m[4]:m[5]], s[m[6]:m[7]])
		last := first.seq
		if m[8] >= 0 {
			if n, err := strconv.Atoi(s[m[8]:m[9]]); err == nil && n > first.seq && n-first.seq < maxRange {
				last = n
			}
		}
		for n := first.seq; first.ok() && n <= last; n++ {
			add(ref{agent: first.agent, seq: n})
		}
	}
	return out
}

// endsReference reports whether what follows "agent/12" ends it, so that
// paths such as traces/012-name.md are not read as references.
func endsReference(rest string) bool {
	if rest == "" {
		return true
	}
	switch c := rest[0]; {
	case c >= '0' && c <= '9', c == '-', c == '_', c == '/':
		return false
	case c == '.' && len(rest) > 1 && isAlnum(rest[1]):
		return false
	case isAlnum(c):
		return false
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func makeRef(agent, seq string) ref {
	agent = strings.ToLower(agent)
	n, err := strconv.Atoi(seq)
	if err != nil || n <= 0 || notAgents[agent] {
		return ref{}
	}
	return ref{agent: agent, seq: n}
}
