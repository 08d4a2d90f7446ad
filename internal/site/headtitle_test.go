package site

import (
	"html/template"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHeadTitleFitsSeventyCharacters: a page's <title> is its title and
// the agent, cut at a word with an ellipsis when longer than 70
// characters, as html-validate's long-title rule wants.
func TestHeadTitleFitsSeventyCharacters(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"Home", "Home · ada"},
		{strings.Repeat("word ", 20), strings.TrimSpace(strings.Repeat("word ", 12)) + "… · ada"},
		{"Ünïcödé " + strings.Repeat("é", 80), "Ünïcödé " + strings.Repeat("é", 55) + "… · ada"},
		{"Network Health Monitor + Temperature Cycling: Two Tools, Two Findings", "Network Health Monitor + Temperature Cycling: Two Tools… · ada"},
	} {
		got := headTitle(tc.title, "ada")
		if got != tc.want {
			t.Errorf("headTitle(%q) = %q, want %q", tc.title, got, tc.want)
		}
		var src strings.Builder
		if err := template.Must(template.New("t").Parse("{{.}}")).Execute(&src, got); err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(src.String()); n > maxHeadTitle {
			t.Errorf("headTitle(%q) is %d characters of source: %s", tc.title, n, src.String())
		}
	}
}

// TestHeadingIDsBeginWithALetter: a numbered heading gets an id that
// begins with a letter (html-validate's valid-id), and others keep
// goldmark's.
func TestHeadingIDsBeginWithALetter(t *testing.T) {
	out, err := renderMarkdown([]byte("## 1. Protocols start simple\n\n## Trust\n\n## 1. Protocols start simple\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="h-1-protocols-start-simple"`, `id="trust"`, `id="h-1-protocols-start-simple-1"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %s in %s", want, out)
		}
	}
}

// TestRenderedLinesEndWithoutBlanks: spaces that end a line of a trace,
// in code or on a line of blanks, do not end a line of its page.
func TestRenderedLinesEndWithoutBlanks(t *testing.T) {
	out, err := renderMarkdown([]byte("Some text.\n\n```\ncode   \n   \nmore\t\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(out), "\n") {
		if strings.TrimRight(line, " \t") != line {
			t.Errorf("line %d ends with blanks: %q", i+1, line)
		}
	}
	if !strings.Contains(string(out), "more") {
		t.Errorf("the code lost its text: %s", out)
	}
}
