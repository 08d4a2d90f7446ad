package score

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The token matchers below find what the heuristic counts in a line:
// words, numbers, dates, named systems, paths, citations and command lines. Each one
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

// nextNamed finds the next named system from s[from:]: a CamelCase name,
// an acronym or a version,
// `\b(?:[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{3,6}|v\d+\.\d+(?:\.\d+)?)\b`.
func nextNamed(s string, from int) (int, int) {
	for i := from; i < len(s); i++ {
		if c := s[i]; (isUpper(c) || c == 'v') && !wordAt(s, i-1) {
			if e := namedAt(s, i); e >= 0 {
				return i, e
			}
		}
	}
	return -1, -1
}

// namedAt returns the end of the named system (nextNamed) at s[i], or -1.
func namedAt(s string, i int) int {
	if s[i] == 'v' {
		return versionAt(s, i)
	}
	// CamelCase: the lowercase run must end on a capital, and the name
	// takes every letter and digit after it.
	if j := runOf(s, i+1, func(c byte) bool { return isLower(c) || isDigit(c) }); j > i+1 {
		if j < len(s) && isUpper(s[j]) {
			if q := runOf(s, j+1, isAlnum); !wordAt(s, q) {
				return q
			}
		}
		return -1
	}
	// An acronym of 3 to 6 capitals, not part of a longer word.
	if r := runOf(s, i, isUpper); r-i >= 3 && r-i <= 6 && !wordAt(s, r) {
		return r
	}
	return -1
}

// versionAt returns the end of "v1.2" or "v1.2.3" at s[i], or -1.
func versionAt(s string, i int) int {
	j := runOf(s, i+1, isDigit)
	if j == i+1 || j >= len(s) || s[j] != '.' {
		return -1
	}
	p := runOf(s, j+1, isDigit)
	if p == j+1 {
		return -1
	}
	if p+1 < len(s) && s[p] == '.' && isDigit(s[p+1]) {
		if q := runOf(s, p+1, isDigit); !wordAt(s, q) {
			return q
		}
	}
	if !wordAt(s, p) {
		return p
	}
	return -1
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

// pathExts are the file name extensions a path may end with, in the
// order the reference tries them.
var pathExts = []string{"md", "go", "py", "js", "ts", "json", "yaml", "yml", "sh", "txt", "toml", "html"}

// nextPath finds the next path or file name from s[from:], after the
// start of the line, a space, "(" or a backtick: the group of
// `(?:^|[\s(`])((?:/[A-Za-z0-9._{}:-]+){2,}/?|[A-Za-z0-9_-]+\.(?:md|go|…|html))\b`.
// It returns the bounds of the path, without the character before it.
func nextPath(s string, from int) (int, int) {
	for i := from; i < len(s); i++ {
		if i == 0 {
			if e := pathAt(s, 0); e >= 0 {
				return 0, e
			}
		}
		if c := s[i]; isSpace(c) || c == '(' || c == '`' {
			if e := pathAt(s, i+1); e >= 0 {
				return i + 1, e
			}
		}
	}
	return -1, -1
}

// pathAt returns the end of the path or file name (nextPath) at s[j], or -1.
func pathAt(s string, j int) int {
	if j < len(s) && s[j] == '/' {
		return slashPathAt(s, j)
	}
	k := runOf(s, j, func(c byte) bool { return isWordByte(c) || c == '-' })
	if k == j || k >= len(s) || s[k] != '.' {
		return -1
	}
	for _, ext := range pathExts {
		if e := k + 1 + len(ext); strings.HasPrefix(s[k+1:], ext) && !wordAt(s, e) {
			return e
		}
	}
	return -1
}

func isPathByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '{' || c == '}' || c == ':' || c == '-'
}

// slashPathAt returns the end of a path of two or more "/segment"s at
// s[j], or -1. Where the longest path does not end on a word boundary it
// backs off in the order a backtracking regexp would: within the last
// segment, then to an earlier one, keeping at least two.
func slashPathAt(s string, j int) int {
	var starts, ends []int
	for p := j; p < len(s) && s[p] == '/'; {
		r := runOf(s, p+1, isPathByte)
		if r == p+1 {
			break
		}
		starts, ends = append(starts, p), append(ends, r)
		p = r
	}
	for k := len(starts) - 1; k >= 1; k-- {
		p := ends[k]
		if p < len(s) && s[p] == '/' && boundary(s, p+1) { // with the optional trailing "/"
			return p + 1
		}
		for e := p; e >= starts[k]+2; e-- {
			if boundary(s, e) {
				return e
			}
		}
	}
	return -1
}

// commandTools are the programs whose name, a space and an argument make
// a command line.
var commandTools = []string{
	"curl", "python", "python3", "go", "git", "npm", "npx", "node", "bun", "bash", "sh", "make",
	"docker", "pip", "meshnode", "jq", "sha256sum",
}

// commandStarts are the beginnings of a command line, by first byte:
// "$ ", an HTTP request ("GET /") or a tool and a space.
var commandStarts = func() (t [256][]string) {
	t['$'] = []string{"$ "}
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		t[m[0]] = append(t[m[0]], m+" /")
	}
	for _, tool := range commandTools {
		t[tool[0]] = append(t[tool[0]], tool+" ")
	}
	return t
}()

// isCommand reports whether line holds a shell command, an HTTP request
// or a --flag:
// `(?:^|\s)(?:\$ |(?:GET|POST|PUT|PATCH|DELETE) /|(?:curl|python3?|…|sha256sum) [\w./<-])|\s--[a-z][a-z-]+`.
func isCommand(line string) bool {
	for i := 0; i < len(line); i++ {
		if (i == 0 || isSpace(line[i-1])) && commandAt(line[i:]) {
			return true
		}
		if isSpace(line[i]) && isFlag(line[i+1:]) {
			return true
		}
	}
	return false
}

// commandAt reports whether s starts with a command (isCommand).
func commandAt(s string) bool {
	for _, p := range commandStarts[s[0]] {
		if !strings.HasPrefix(s, p) {
			continue
		}
		if !strings.HasSuffix(p, " ") || p == "$ " {
			return true
		}
		if len(s) > len(p) && isArgByte(s[len(p)]) {
			return true
		}
	}
	return false
}

// isArgByte reports whether c may start a tool's argument: [\w./<-].
func isArgByte(c byte) bool {
	return isWordByte(c) || c == '.' || c == '/' || c == '<' || c == '-'
}

// isFlag reports whether s starts with "--" and a flag name: --[a-z][a-z-]+.
func isFlag(s string) bool {
	return len(s) >= 4 && s[0] == '-' && s[1] == '-' && isLower(s[2]) && (isLower(s[3]) || s[3] == '-')
}
