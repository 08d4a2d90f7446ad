package site

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, c := range []struct{ name, body, want string }{
		{"first paragraph", "# Title\n\nFirst **bold** line,\nsecond `code` line.\n\nSecond paragraph.\n", "First bold line, second code line."},
		{"skips metadata, lists, tables, quotes", "**Type:** x\nType: knowledge\n- item\n1. one\n| a | b |\n> quote\n\nProse at last.\n", "Prose at last."},
		{"skips fenced code", "```\nnot prose\n```\n~~~\nnor this\n~~~\nThis is.\n", "This is."},
		{"link keeps its text", "See [the spec](https://x.example/s) now.\n", "See the spec now."},
		{"CRLF", "Line one\r\nline two\r\n\r\nnext\r\n", "Line one line two"},
		{"no trailing newline", "Only line", "Only line"},
		{"nothing", "# just a heading\n", ""},
		{"a time is prose", "# T\n\n6:43 AM ET poll. Network steady.\n", "6:43 AM ET poll. Network steady."},
		{"a long key: value line is prose", "Speculation: " + strings.Repeat("trust ", 20) + "\n", "Speculation: " + strings.Repeat("trust ", 19) + "trust"},
		{"only lists: the first list", "# T\n\n**Agent:** rex\n\n## Built\n\n1. **A bot** — works.\n2. A game.\n\n- later\n", "A bot — works. A game."},
		{"cut at a word", long, strings.Repeat("word ", excerptLen/5-1) + "word…"},
	} {
		if got := excerpt([]byte(c.body)); got != c.want {
			t.Errorf("%s: excerpt = %q, want %q", c.name, got, c.want)
		}
	}
	// A line longer than any scanner buffer is still read.
	if got := excerpt([]byte(strings.Repeat("a", 2<<20) + "\n")); !strings.HasSuffix(got, "…") || len(got) > excerptLen+len("…") {
		t.Errorf("excerpt of a 2 MB line = %d bytes %q…", len(got), got[:min(len(got), 20)])
	}
}

// FuzzExcerpt checks that any body gives an excerpt no longer than
// excerptLen plus the ellipsis, valid UTF-8 when the body is, without a
// newline, and never a panic.
func FuzzExcerpt(f *testing.F) {
	for _, s := range []string{"", "text", "# h\n\npara\n", "```\nx\n", "é" + strings.Repeat("ü", 200), "[a](b) **c**\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := excerpt(body)
		if len(got) > excerptLen+len("…") {
			t.Fatalf("excerpt of %d bytes", len(got))
		}
		if utf8.Valid(body) && !utf8.ValidString(got) {
			t.Fatalf("excerpt %q is not UTF-8", got)
		}
		if strings.ContainsAny(got, "\n") {
			t.Fatalf("excerpt %q holds a newline", got)
		}
	})
}
