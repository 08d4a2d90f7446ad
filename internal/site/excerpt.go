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
// lists and metadata lines are skipped. A body with no paragraph of prose
// gives its first list instead, without the list marks. It is shown
// escaped, never as HTML.
func excerpt(body []byte) string {
	if s := firstRun(body, isProse); s != "" {
		return s
	}
	return firstRun(body, isListItem)
}

// firstRun is the first run of lines outside code that keep accepts, as
// plain text cut near excerptLen.
func firstRun(body []byte, keep func(string) string) string {
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
		text := ""
		if !fenced {
			text = keep(line)
		}
		if text == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, text)
	}
	return shorten(plainText(strings.Join(para, " ")), excerptLen)
}

// isProse returns a markdown line that is part of a paragraph of text,
// or "" for any other line.
func isProse(line string) string {
	if line == "" || strings.ContainsRune("#|>-*+<![", rune(line[0])) {
		return ""
	}
	if isDigitByte(line[0]) && strings.Contains(line[:min(len(line), 4)], ".") {
		return "" // a numbered list
	}
	// A short "Key: value" line (a trace's own metadata block) is not
	// prose; "6:43 AM, ..." and a long "Speculation: ..." are.
	if k, _, ok := strings.Cut(line, ":"); ok && len(line) < metaLineLen && len(k) < 24 && !strings.Contains(k, " ") && !isDigitByte(k[0]) {
		return ""
	}
	return line
}

// metaLineLen is the length from which a "Key: value" line is taken for
// prose: metadata values are short.
const metaLineLen = 100

// isListItem returns the text of a list item line ("- x", "* x", "+ x",
// "1. x"), or "".
func isListItem(line string) string {
	if rest, ok := strings.CutPrefix(line, "- "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(line, "* "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(line, "+ "); ok {
		return rest
	}
	i := 0
	for i < len(line) && isDigitByte(line[i]) {
		i++
	}
	if i > 0 && i < 4 {
		if rest, ok := strings.CutPrefix(line[i:], ". "); ok {
			return rest
		}
	}
	return ""
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
