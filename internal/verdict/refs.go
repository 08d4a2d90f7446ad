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
	// Each form holds a character or a word that a plain search finds
	// far faster than its regular expression, and most text holds none.
	low := strings.ToLower(s)
	return firstRefOf(s, owner, strings.Contains(s, "/"), strings.Contains(low, "trace"), owner != "" && strings.Contains(low, "(seq "))
}

// firstRefOf is firstRef trying only the forms s may hold: agent/seq
// when slash, "agent trace seq" when word, "(seq N)" when seq.
func firstRefOf(s, owner string, slash, word, seq bool) ref {
	best, at := ref{}, len(s)+1
	if slash {
		best, at = slashRef(s)
	}
	if word {
		if m := wordRe.FindStringSubmatchIndex(s); m != nil && m[0] < at {
			if r := makeRef(s[m[2]:m[3]], s[m[4]:m[5]]); r.ok() {
				best, at = r, m[0]
			}
		}
	}
	if seq {
		if m := seqRe.FindStringSubmatchIndex(s); m != nil && m[0] < at {
			if r := makeRef(owner, s[m[2]:m[3]]); r.ok() {
				best = r
			}
		}
	}
	return best
}

// slashRef returns the first agent/seq in s and where it starts, or
// len(s)+1 when there is none.
func slashRef(s string) (ref, int) {
	for _, m := range slashRe.FindAllStringSubmatchIndex(s, -1) {
		if !endsReference(s[m[1]:]) {
			continue
		}
		if r := makeRef(s[m[4]:m[5]], s[m[6]:m[7]]); r.ok() {
			return r, m[4]
		}
	}
	return ref{}, len(s) + 1
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
