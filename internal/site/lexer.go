package site

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/util"
)

// The languages of nearly every code block in the mesh (in the real
// snapshot: JSON, markdown, bash, TypeScript and JavaScript; Go and
// Python in our own traces) are highlighted by the small lexer below,
// which reads each byte once, instead of by chroma, whose regexp2 lexers
// try every rule of a state at every token, at about 4 µs a byte: that
// was a sixth of a cold build's CPU. It marks what a reader looks for
// (keywords, constants, strings, numbers, comments, keys, variables)
// with chroma's class names, so chroma's stylesheet colours both; other
// languages still go to chroma (highlight).

// syntax is what the lexer knows of a language.
type syntax struct {
	lineComments []string  // markers of a comment to the end of the line
	blockComment [2]string // a comment's opening and closing marks, if any
	quotes       string    // the characters that open and close a string
	multiline    string    // of quotes, those whose strings span lines
	keywords     map[string]bool
	types        map[string]bool
	constants    map[string]bool
	keys         bool // a string or word followed by ':' is a key (JSON, YAML)
	hashComment  bool // '#' starts a comment only after a space (shells)
	variables    bool // $NAME and ${…} are variables (shells)
	headings     bool // a line starting with '#' is a heading (markdown)
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	cLike = syntax{lineComments: []string{"//"}, blockComment: [2]string{"/*", "*/"}}

	goSyntax = with(cLike, "\"'`", "`",
		"break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
		"bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any",
		"true false nil iota")
	jsSyntax = with(cLike, "\"'`", "`",
		"break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return "+
			"super switch this throw try typeof var void while with yield async await static get set "+
			"type interface enum implements private protected public readonly declare namespace abstract as keyof",
		"string number boolean any unknown never object symbol bigint void",
		"true false null undefined NaN Infinity")
	pythonSyntax = syntax{lineComments: []string{"#"}, quotes: "\"'",
		keywords:  words("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield"),
		constants: words("True False None")}
	jsonSyntax  = syntax{quotes: "\"", keys: true, constants: words("true false null")}
	yamlSyntax  = syntax{lineComments: []string{"#"}, hashComment: true, quotes: "\"'", keys: true, constants: words("true false null yes no on off ~")}
	shellSyntax = syntax{lineComments: []string{"#"}, hashComment: true, quotes: "\"'", multiline: "\"'", variables: true,
		keywords: words("if then else elif fi for while until do done case esac in function select return break continue export local readonly declare unset shift exit source alias time"),
	}
	markdownSyntax = syntax{headings: true}

	// syntaxes are the languages the lexer knows, by every name a
	// fence's info string gives them.
	syntaxes = map[string]*syntax{
		"go": &goSyntax, "golang": &goSyntax,
		"js": &jsSyntax, "javascript": &jsSyntax, "jsx": &jsSyntax, "mjs": &jsSyntax, "cjs": &jsSyntax,
		"ts": &jsSyntax, "typescript": &jsSyntax, "tsx": &jsSyntax,
		"py": &pythonSyntax, "python": &pythonSyntax, "python3": &pythonSyntax,
		"json": &jsonSyntax, "jsonc": &jsonSyntax,
		"yaml": &yamlSyntax, "yml": &yamlSyntax,
		"bash": &shellSyntax, "sh": &shellSyntax, "shell": &shellSyntax, "zsh": &shellSyntax, "console": &shellSyntax, "shell-session": &shellSyntax,
		"markdown": &markdownSyntax, "md": &markdownSyntax,
	}
)

// with is the C-like syntax s with its strings, keywords, types and
// constants.
func with(s syntax, quotes, multiline, keywords, types, constants string) syntax {
	s.quotes, s.multiline = quotes, multiline
	s.keywords, s.types, s.constants = words(keywords), words(types), words(constants)
	return s
}

// lex writes code highlighted as syntax s to w, in chroma's wrapper and
// class names. Text between tokens is written escaped, without a span.
func (s *syntax) lex(w *bytes.Buffer, code string) {
	w.WriteString(`<pre tabindex="0" class="chroma"><code>`)
	lineStart := true
	for i := 0; i < len(code); {
		n, class := s.token(code, i, lineStart)
		if n == 0 {
			n = 1
		}
		tok := code[i : i+n]
		if class != "" {
			w.WriteString(`<span class="` + class + `">`)
			escapeTo(w, tok)
			w.WriteString(`</span>`)
		} else {
			escapeTo(w, tok)
		}
		lineStart = tok[len(tok)-1] == '\n' || (lineStart && isBlank(tok))
		i += n
	}
	w.WriteString(`</code></pre>`)
}

// token is the length and class of the token at code[i:]; a class of ""
// is plain text.
func (s *syntax) token(code string, i int, lineStart bool) (int, string) {
	rest := code[i:]
	c := rest[0]
	switch {
	case s.headings && lineStart && c == '#':
		return lineEnd(rest), "gh"
	case s.lineComment(code, i):
		return lineEnd(rest), "c1"
	case s.blockComment[0] != "" && strings.HasPrefix(rest, s.blockComment[0]):
		end := strings.Index(rest[len(s.blockComment[0]):], s.blockComment[1])
		if end < 0 {
			return len(rest), "cm"
		}
		return len(s.blockComment[0]) + end + len(s.blockComment[1]), "cm"
	case strings.IndexByte(s.quotes, c) >= 0:
		n := s.stringLen(rest)
		if s.keys && followedByColon(rest[n:]) {
			return n, "nt"
		}
		return n, stringClass(c)
	case s.variables && c == '$':
		return variableLen(rest), "nv"
	case isDigitByte(c) && (i == 0 || !isWordByte(code[i-1])):
		return numberLen(rest), "m"
	case isWordByte(c) && (i == 0 || !isWordByte(code[i-1])):
		n := wordLen(rest)
		return n, s.wordClass(rest[:n], rest[n:], lineStart)
	case c == ' ' || c == '\t':
		return len(rest) - len(strings.TrimLeft(rest, " \t")), ""
	}
	return 1, ""
}

// lineComment reports whether a line comment starts at code[i].
func (s *syntax) lineComment(code string, i int) bool {
	for _, m := range s.lineComments {
		if strings.HasPrefix(code[i:], m) && (!s.hashComment || i == 0 || code[i-1] == ' ' || code[i-1] == '\t' || code[i-1] == '\n') {
			return true
		}
	}
	return false
}

// stringLen is the length of the string opening rest, its closing quote
// included; a backslash escapes the next byte, and a string of a quote
// that does not span lines ends at the line's end.
func (s *syntax) stringLen(rest string) int {
	q := rest[0]
	spans := strings.IndexByte(s.multiline, q) >= 0
	for j := 1; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			if !spans {
				return j
			}
		}
	}
	return len(rest)
}

// wordClass is the class of a word: a key, a constant, a keyword, a
// type, or none.
func (s *syntax) wordClass(word, after string, lineStart bool) string {
	switch {
	case s.keys && lineStart && followedByColon(after):
		return "nt"
	case s.constants[word]:
		return "kc"
	case s.keywords[word]:
		return "k"
	case s.types[word]:
		return "kt"
	}
	return ""
}

func stringClass(q byte) string {
	switch q {
	case '\'':
		return "s1"
	case '`':
		return "sb"
	}
	return "s2"
}

// followedByColon reports whether rest, after spaces, starts with ':'.
func followedByColon(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return rest != "" && rest[0] == ':'
}

// lineEnd is the length of rest up to its line's end, the newline not
// included (a line that is only a newline gives 1).
func lineEnd(rest string) int {
	if n := strings.IndexByte(rest, '\n'); n > 0 {
		return n
	} else if n == 0 {
		return 1
	}
	return len(rest)
}

// variableLen is the length of a shell variable: $NAME, ${…}, or $ and
// one more character ($1, $?).
func variableLen(rest string) int {
	if len(rest) < 2 {
		return 1
	}
	if rest[1] == '{' {
		if end := strings.IndexAny(rest, "}\n"); end > 0 && rest[end] == '}' {
			return end + 1
		}
		return 1
	}
	if n := wordLen(rest[1:]); n > 0 {
		return 1 + n
	}
	return 2
}

func numberLen(rest string) int {
	n := 0
	for n < len(rest) && (isWordByte(rest[n]) || rest[n] == '.') {
		n++
	}
	return n
}

func wordLen(rest string) int {
	n := 0
	for n < len(rest) && isWordByte(rest[n]) {
		n++
	}
	return n
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isBlank(s string) bool { return strings.TrimLeft(s, " \t") == "" }

// escapeTo writes s to w escaped as goldmark escapes text.
func escapeTo(w *bytes.Buffer, s string) {
	for len(s) > 0 {
		i := strings.IndexAny(s, `<>&"`)
		if i < 0 {
			w.WriteString(s)
			return
		}
		w.WriteString(s[:i])
		w.Write(util.EscapeHTML([]byte{s[i]}))
		s = s[i+1:]
	}
}
