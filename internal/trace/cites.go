package trace

import (
	"strconv"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

const (
	// maxAgentName matches the roster's limit on agent names.
	maxAgentName = 64
	// maxCiteSeq keeps a seq far from integer overflow.
	maxCiteSeq = 999_999_999
)

// notAgents are words that look like "agent/" before a number but name a
// protocol ("HTTP/2").
var notAgents = map[string]bool{"http": true, "https": true}

// FindCitations finds "agent/seq" references ("czero/058", "[@uno/003]") in
// text, deduplicated, in order of first appearance. Paths and URLs are not
// citations: a reference preceded by "/" or ".", or followed by a letter,
// "/", or "." or "-" and a letter or digit ("abs/2305.10601",
// "traces/161-response.md"), is skipped, as is an "agent" with no letter
// ("24/30").
//
// A reference holds no white space, and white space on either side of one
// lets it stand, so matching word by word finds exactly what matching the
// whole text finds, in the same order (FuzzFindCitationsWordByWord checks
// it); and only a word with a "/" followed by a digit can hold one. So the
// regular expression, which has no literal prefix and would otherwise be
// tried at every letter of the text, runs only on those words: ten times
// faster on real traces, which matters to a site of 10,000 of them. The
// words are matched by nextReference, which finds what the regular
// expression `[A-Za-z0-9][A-Za-z0-9._-]*/[0-9]{1,9}` finds without its
// machinery (FuzzFindCitationsWordByWord holds the expression and checks
// both).
func FindCitations(text []byte) []Citation {
	var out []Citation
	for i := 0; i < len(text); i++ {
		if text[i] != '/' || i+1 == len(text) || !isDigit(text[i+1]) {
			continue
		}
		start, end := i, i+1
		for start > 0 && !isSpace(text[start-1]) {
			start--
		}
		for end < len(text) && !isSpace(text[end]) {
			end++
		}
		out = append(out, matchCitations(text[start:end])...)
		i = end
	}
	return dedupCitations(out)
}

// matchCitations finds the references of the whole of text.
func matchCitations(text []byte) []Citation {
	var out []Citation
	for from := 0; ; {
		start, end := nextReference(text, from)
		if start < 0 {
			return out
		}
		if c, ok := citationAt(text, start, end); ok {
			out = append(out, c)
		}
		from = end
	}
}

// nextReference is the leftmost candidate in text at or after from, as
// the expression `[A-Za-z0-9][A-Za-z0-9._-]*/[0-9]{1,9}` matches it: a
// run of name bytes starting with a letter or digit, a "/", and up to
// nine digits. A run not followed by "/" and a digit holds no candidate
// at any of its bytes, since a later start reaches the same end; start
// is -1 when there is none.
func nextReference(text []byte, from int) (start, end int) {
	for i := from; i < len(text); {
		if !isAlnum(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (isAlnum(text[j]) || text[j] == '.' || text[j] == '_' || text[j] == '-') {
			j++
		}
		if j+1 < len(text) && text[j] == '/' && isDigit(text[j+1]) {
			end = j + 2
			for end < len(text) && end < j+10 && isDigit(text[end]) {
				end++
			}
			return i, end
		}
		i = j
	}
	return -1, -1
}

// isSpace is ASCII white space, which never splits a UTF-8 sequence.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

func citationAt(text []byte, start, end int) (Citation, bool) {
	if start > 0 && strings.IndexByte("/.:_-\\=&?#%~+", text[start-1]) >= 0 {
		return Citation{}, false
	}
	if end < len(text) && !endsReference(text[end:]) {
		return Citation{}, false
	}
	agent, seqText, _ := strings.Cut(string(text[start:end]), "/")
	agent = strings.ToLower(strings.TrimRight(agent, ".-_"))
	seq, err := strconv.Atoi(seqText)
	if err != nil || seq < 1 || seq > maxCiteSeq || agent == "" || len(agent) > maxAgentName ||
		!strings.ContainsAny(agent, "abcdefghijklmnopqrstuvwxyz") || notAgents[agent] {
		return Citation{}, false
	}
	return Citation{Agent: agent, Seq: manifest.Seq(seq)}, true
}

// endsReference reports whether rest, the text after a candidate, lets it
// end there.
func endsReference(rest []byte) bool {
	c := rest[0]
	switch {
	case isAlnum(c) || c == '/' || c == '_':
		return false
	case c == '.' || c == '-':
		return len(rest) < 2 || !isAlnum(rest[1]) || (c == '-' && isDigit(rest[1]))
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func dedupCitations(in []Citation) []Citation {
	seen := map[Citation]bool{}
	var out []Citation
	for _, c := range in {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// String writes the citation as "agent/seq" with the seq padded to three
// digits, as authors write them.
func (c Citation) String() string {
	return c.Agent + "/" + padSeq(c.Seq)
}

func padSeq(n manifest.Seq) string {
	s := strconv.Itoa(int(n))
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}
