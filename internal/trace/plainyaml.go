package trace

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// plainFrontMatter reads the front matter nearly every trace carries, a
// block of "key: value" lines whose values YAML reads as strings (plain,
// quoted without escapes, or a flow list of such), without the YAML
// decoder, which cost a build of 10,000 traces half a CPU second and a
// fifth of its allocations. fm is the front matter with its delimiters,
// as decodeYAML takes it. It reports false for anything else (a number,
// a date, a comment, an indented line, a duplicate key…), which
// decodeYAML then reads; where it reports true, its fields are the ones
// decodeYAML gives (FuzzPlainFrontMatter compares the two).
func plainFrontMatter(fm []byte) ([]field, bool) {
	block, ok := plainBlock(fm)
	if !ok {
		return nil, false
	}
	lines := strings.Split(string(block), "\n")
	var fields []field
	seen := map[string]bool{}
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		f, ok := yamlLine(lines[i])
		if !ok || seen[f.key] {
			return nil, false // a duplicate key is a YAML error: decodeYAML's to report
		}
		if f.value == "" {
			var n int
			if f.value, n, ok = blockList(lines[i+1:]); !ok {
				return nil, false
			}
			i += n
		}
		seen[f.key] = true
		fields = append(fields, f)
	}
	sortFields(fields)
	return fields, true
}

// plainBlock is what lies between the delimiters when fm opens with
// exactly "---\n" and closes with exactly "---" (the front matter
// library compares delimiters after trimming, which this path leaves to
// it).
func plainBlock(fm []byte) ([]byte, bool) {
	block, ok := bytes.CutPrefix(fm, []byte("---\n"))
	if !ok {
		return nil, false
	}
	if b, ok := bytes.CutSuffix(block, []byte("---\n")); ok {
		block = b
	} else if b, ok := bytes.CutSuffix(block, []byte("---")); ok {
		block = b
	} else {
		return nil, false
	}
	if len(block) > 0 && block[len(block)-1] != '\n' {
		return nil, false
	}
	return block, true
}

// blockList reads the "- item" lines that may follow a key with no
// value, all indented alike, and returns their text joined as
// scalarText joins a list, and how many lines it took.
func blockList(lines []string) (string, int, bool) {
	var items []string
	indent := ""
	for _, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		item, ok := strings.CutPrefix(trimmed, "- ")
		if !ok {
			break
		}
		if pad := l[:len(l)-len(trimmed)]; len(items) == 0 {
			indent = pad
		} else if pad != indent {
			return "", 0, false
		}
		item = strings.Trim(item, " ")
		text, ok := plainValue(item)
		if !ok || text == "" || item[0] == '[' {
			return "", 0, false
		}
		items = append(items, text)
	}
	return strings.Join(items, ", "), len(items), true
}

// yamlLine reads one "key: value" line of front matter.
func yamlLine(line string) (field, bool) {
	key, value, ok := strings.Cut(line, ":")
	if !ok || !plainKey(key) || value != "" && value[0] != ' ' {
		return field{}, false
	}
	value = strings.TrimLeft(value, " ")
	text, ok := plainValue(strings.TrimRight(value, " "))
	return field{key: key, value: text}, ok
}

// plainKey accepts a word of letters, digits, "_" and "-" starting with
// a letter or "_", short of YAML's 1,024 bytes for a key, and none that
// YAML reads as a boolean or null.
func plainKey(k string) bool {
	if k == "" || len(k) > 128 || !isLetter(k[0]) && k[0] != '_' {
		return false
	}
	for i := range len(k) {
		if c := k[i]; !isLetter(c) && !isDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	switch strings.ToLower(k) {
	case "true", "false", "null":
		return false
	}
	return true
}

// plainValue is the text of a value, when YAML reads it as a string or
// a list of strings: scalarText joins a list's items with ", ".
func plainValue(v string) (string, bool) {
	switch {
	case v == "":
		return "", true // null, which scalarText makes ""
	case v[0] == '[':
		return plainList(v)
	case v[0] == '"' || v[0] == '\'':
		return quoted(v)
	case plainScalar(v, false):
		return v, true
	}
	return "", false
}

// plainList reads a flow list of plain or quoted strings on one line.
func plainList(v string) (string, bool) {
	inner, ok := strings.CutSuffix(v[1:], "]")
	if !ok {
		return "", false
	}
	if strings.Trim(inner, " ") == "" {
		return "", true
	}
	items := strings.Split(inner, ",")
	for i, it := range items {
		it = strings.Trim(it, " ")
		switch {
		case it != "" && (it[0] == '"' || it[0] == '\''):
			if it, ok = quoted(it); !ok || it == "" {
				return "", false
			}
		case !plainScalar(it, true):
			return "", false
		}
		items[i] = it
	}
	return strings.Join(items, ", "), true
}

// quoted is the text of a single- or double-quoted scalar holding no
// escape, no quote of its kind and nothing a line break would change.
func quoted(v string) (string, bool) {
	q := v[0]
	if len(v) < 2 || v[len(v)-1] != q {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if strings.IndexByte(inner, q) >= 0 || strings.IndexByte(inner, '\\') >= 0 || !printable(inner) {
		return "", false
	}
	return inner, true
}

// plainScalar accepts a plain scalar YAML reads as this very string: it
// starts with no indicator and nothing YAML would read as a number, a
// date, a boolean or null, holds no ": " (a mapping) or " #" (a
// comment), and, in a flow list, none of ",[]{}:".
func plainScalar(s string, flow bool) bool {
	if s == "" || strings.IndexByte("-?:,[]{}#&*!|>'\"%@`+.0123456789~<=", s[0]) >= 0 || !printable(s) {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "null":
		return false
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.Contains(s, " #") {
		return false
	}
	return !flow || !strings.ContainsAny(s, ",[]{}:#")
}

// printable reports whether s holds only characters YAML takes as they
// are on one line: no control characters (tab included), and none of
// the characters it reads as line breaks or a byte order mark.
func printable(s string) bool {
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f,
			0x80 <= r && r <= 0x9f,
			r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff,
			r == utf8.RuneError:
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
