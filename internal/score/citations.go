package score

import (
	"regexp"
	"strings"
)

// wordCiteRe is a citation in words: "agent trace N", "agent's seq N".
var wordCiteRe = regexp.MustCompile(`(?i)\b([a-z][a-z0-9-]{1,30})(?:'s|’s)? (?:trace|seq) #?(\d{1,4})\b`)

// scanCites records the traces line t cites: "agent/seq" (nextCite) and,
// where t may hold one, citations in words (wordCiteRe).
func (f *features) scanCites(t string) {
	for from := 0; ; {
		i, slash, e := nextCite(t, from)
		if i < 0 {
			break
		}
		f.cites[citation(t[i:slash], t[slash+1:e])] = true
		from = e
	}
	if mayCiteInWords(t) {
		for _, m := range wordCiteRe.FindAllStringSubmatch(t, -1) {
			f.wordCites[citation(m[1], m[2])] = true
		}
	}
}

// nextCite finds the next citation "agent/seq" from s[from:]:
// `\b([a-z][a-z0-9-]{1,30})/(\d{1,4})\b`. It returns where the agent
// starts, where the "/" is, and where the seq ends.
func nextCite(s string, from int) (int, int, int) {
	for i := from; i < len(s); i++ {
		if !isLower(s[i]) || wordAt(s, i-1) {
			continue
		}
		slash := runOf(s, i+1, func(c byte) bool { return isLower(c) || isDigit(c) || c == '-' })
		if n := slash - i - 1; n < 1 || n > 30 || slash >= len(s) || s[slash] != '/' {
			continue
		}
		e := runOf(s, slash+1, isDigit)
		if n := e - slash - 1; n < 1 || n > 4 || wordAt(s, e) {
			continue
		}
		return i, slash, e
	}
	return -1, -1, -1
}

// mayCiteInWords reports whether s can hold a citation in words
// (wordCiteRe): "trace" or "seq" in any case, a space, and a figure,
// perhaps after "#". Of their letters only "s" folds to more than its
// capital, to "ſ".
func mayCiteInWords(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != ' ' || !(isDigit(s[i+1]) || s[i+1] == '#' && i+2 < len(s) && isDigit(s[i+2])) {
			continue
		}
		before := s[:i]
		if hasLowerSuffix(before, "trace") {
			return true
		}
		if hasLowerSuffix(before, "eq") {
			if b := before[:len(before)-2]; hasLowerSuffix(b, "s") || strings.HasSuffix(b, "ſ") {
				return true
			}
		}
	}
	return false
}

// hasLowerSuffix reports whether s ends with the lowercase ASCII letters
// suffix, in any case.
func hasLowerSuffix(s, suffix string) bool {
	if len(s) < len(suffix) {
		return false
	}
	s = s[len(s)-len(suffix):]
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 != suffix[i] {
			return false
		}
	}
	return true
}

// citation is the canonical "agent/seq" of a reference: "noobAgent trace
// 022" and "noobagent/22" name the same trace.
func citation(agent, seq string) string {
	seq = strings.TrimLeft(seq, "0")
	if seq == "" {
		seq = "0"
	}
	return strings.ToLower(agent) + "/" + seq
}

// countCites counts the distinct traces the body cites: "agent/seq", and
// "agent trace N" or "agent's seq N" in words when agent is the author or
// an agent the node knows (the words before "trace" are otherwise just
// words: "from trace 12", "our trace 5").
func (j *judge) countCites() int {
	named := map[string]bool{} // agents named in word citations not also given as agent/seq
	for c := range j.f.wordCites {
		if !j.f.cites[c] {
			agent, _, _ := strings.Cut(c, "/")
			named[agent] = true
		}
	}
	n := len(j.f.cites)
	if len(named) == 0 {
		return n
	}
	// One pass over the known traces, looking up only the names used.
	known := map[string]bool{strings.ToLower(j.in.Record.Agent): true}
	if j.in.Trace != nil {
		known[strings.ToLower(j.in.Trace.Agent)] = true
	}
	for _, k := range j.in.Known {
		if a := strings.ToLower(k.Agent); named[a] {
			known[a] = true
		}
	}
	for c := range j.f.wordCites {
		agent, _, _ := strings.Cut(c, "/")
		if known[agent] && !j.f.cites[c] {
			n++
		}
	}
	return n
}
