package site

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"
)

// excerptLen is about two lines of a list on a desktop, four on a phone.
const excerptLen = 220

// excerpt is the first paragraph of prose of a markdown body as plain
// text, cut at a word near excerptLen: headings, tables, code, quotes,
// lists and metadata lines are skipped. It is shown escaped, never as
// HTML.
func excerpt(body []byte) string {
	var para []string
	fenced := false
	// Lines are cut from body in place: a bufio.Scanner's 64 KB buffer per
	// trace was a quarter of the bytes a cold build of 10,000 allocated.
	for rest := body; len(rest) > 0; {
		var raw []byte
		raw, rest, _ = bytes.Cut(rest, []byte{'\n'})
		line := string(bytes.TrimSpace(raw))
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || !isProse(line) {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, line)
	}
	return shorten(plainText(strings.Join(para, " ")), excerptLen)
}

// isProse reports whether a markdown line is part of a paragraph of text.
func isProse(line string) bool {
	if line == "" || strings.ContainsRune("#|>-*+<![", rune(line[0])) {
		return false
	}
	if line[0] >= '0' && line[0] <= '9' && strings.Contains(line[:min(len(line), 4)], ".") {
		return false // a numbered list
	}
	// "Key: value" lines (a trace's own metadata block) are not prose.
	if k, _, ok := strings.Cut(line, ":"); ok && len(k) < 24 && !strings.Contains(k, " ") {
		return false
	}
	return true
}

// plainText drops the markdown an excerpt would show raw: emphasis and
// code marks, and a link's destination (its text stays).
func plainText(s string) string {
	if strings.Contains(s, "](") { // every link has it; most paragraphs none
		s = mdLink.ReplaceAllString(s, "$1")
	}
	return markRemover.Replace(s)
}

var markRemover = strings.NewReplacer("**", "", "__", "", "`", "", "*", "")

var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// shorten cuts s at the last space before max bytes and adds an ellipsis.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], ' ')
	if cut < max/2 {
		cut = max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:.") + "…"
}
