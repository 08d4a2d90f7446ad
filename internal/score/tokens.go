package score

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The token matchers find what the heuristic counts in a line: words,
// numbers and dates (below), named systems (named.go), paths (paths.go),
// citations (citations.go) and command lines (commandline.go). Each one
// finds exactly what the regular expression in its comment finds, with
// Go's leftmost-first semantics (\b and \d are ASCII, \s is [\t\n\f\r ]),
// but by hand: run as regular expressions they were two thirds of a
// heartbeat's scoring (docs/scoring.md, "What the heuristic costs"). The
// tests hold the regular expressions as the reference and fuzz each
// matcher against its own.

// isWordByte reports whether c is a \w character: [0-9A-Za-z_]. A byte
// of a multi-byte character is not, as no non-ASCII rune is.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlnum(c byte) bool { return isDigit(c) || isUpper(c) || isLower(c) }

// isSpace reports whether c is \s.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// wordAt reports whether s[i] is a word character; false past the end.
func wordAt(s string, i int) bool { return i >= 0 && i < len(s) && isWordByte(s[i]) }

// boundary reports whether \b holds before s[i].
func boundary(s string, i int) bool { return wordAt(s, i-1) != wordAt(s, i) }

// runOf returns the end of the run of bytes from i that are in class.
func runOf(s string, i int, class func(byte) bool) int {
	for i < len(s) && class(s[i]) {
		i++
	}
	return i
}

// eachMatch calls yield with every match of next in s, from the left,
// each search starting where the previous match ended.
func eachMatch(s string, next func(s string, from int) (int, int), yield func(string)) {
	for from := 0; ; {
		i, e := next(s, from)
		if i < 0 {
			return
		}
		yield(s[i:e])
		from = e
	}
}

// nextWord finds the next word from s[from:]: `[\p{L}\p{N}][\p{L}\p{N}'’-]*`.
func nextWord(s string, from int) (int, int) {
	for i := from; i < len(s); {
		r, size := runeAt(s, i)
		if !isLetterOrNumber(r) {
			i += size
			continue
		}
		e := i + size
		for e < len(s) {
			r, size = runeAt(s, e)
			if !isLetterOrNumber(r) && r != '\'' && r != '’' && r != '-' {
				break
			}
			e += size
		}
		return i, e
	}
	return -1, -1
}

// runeAt decodes the rune at s[i] as the regexp package does: an invalid
// byte is utf8.RuneError of size 1.
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isLetterOrNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return isAlnum(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// wordsIn returns the words of s (nextWord).
func wordsIn(s string) []string {
	var out []string
	eachMatch(s, nextWord, func(w string) { out = append(out, w) })
	return out
}

// countWords counts the words of s (nextWord).
func countWords(s string) int {
	n := 0
	for from := 0; ; n++ {
		i, e := nextWord(s, from)
		if i < 0 {
			return n
		}
		from = e
	}
}

// firstWord returns the first word of s (nextWord), or "".
func firstWord(s string) string {
	if i, e := nextWord(s, 0); i >= 0 {
		return s[i:e]
	}
	return ""
}

// nextNumber finds the next figure from s[from:]: `\b\d[\d,.]*%?`.
func nextNumber(s string, from int) (int, int) {
	for i := from; i < len(s); i++ {
		if !isDigit(s[i]) || wordAt(s, i-1) {
			continue
		}
		e := runOf(s, i+1, func(c byte) bool { return isDigit(c) || c == ',' || c == '.' })
		if e < len(s) && s[e] == '%' {
			e++
		}
		return i, e
	}
	return -1, -1
}

// nextDate finds the next ISO date from s[from:]:
// `\b20\d\d-[01]\d-[0-3]\d\b`.
func nextDate(s string, from int) (int, int) {
	for from < len(s) {
		k := strings.Index(s[from:], "20")
		if k < 0 {
			break
		}
		if i := from + k; isDateAt(s, i) {
			return i, i + 10
		}
		from += k + 1
	}
	return -1, -1
}

// isDateAt reports whether a date (nextDate) starts at s[i], which holds "20".
func isDateAt(s string, i int) bool {
	if len(s)-i < 10 || wordAt(s, i-1) || wordAt(s, i+10) {
		return false
	}
	d := s[i : i+10]
	return isDigit(d[2]) && isDigit(d[3]) && d[4] == '-' && (d[5] == '0' || d[5] == '1') && isDigit(d[6]) &&
		d[7] == '-' && '0' <= d[8] && d[8] <= '3' && isDigit(d[9])
}

// withoutDates replaces every date of s (nextDate) with a space.
func withoutDates(s string) string {
	i, e := nextDate(s, 0)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	from := 0
	for i >= 0 {
		b.WriteString(s[from:i])
		b.WriteByte(' ')
		from = e
		i, e = nextDate(s, e)
	}
	b.WriteString(s[from:])
	return b.String()
}
