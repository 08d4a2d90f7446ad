package peertext

import (
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "knowledge", "knowledge"},
		{"trimmed", "  capability ", "capability"},
		{"NUL", "capability\x00", "capability\uFFFD"},
		{"NUL inside", "capa\x00bility", "capa\uFFFDbility"},
		{"tab and newlines are spaces", "a\tb\nc\rd", "a b c d"},
		{"white space at the end goes", "knowledge\t", "knowledge"},
		{"OSC 0 window title", "x\x1b]0;pwned\x07", "x\uFFFD]0;pwned\uFFFD"},
		{"CSI 2J", "\x1b[2Jtitle", "\uFFFD[2Jtitle"},
		{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJm\x07", "\uFFFD]52;c;cm0gLXJm\uFFFD"},
		{"DEL", "a\x7fb", "a\uFFFDb"},
		{"C1 CSI", "a\u009b2Jb", "a\uFFFD2Jb"},
		{"bidi override", "txt.\u202egpj", "txt.\uFFFDgpj"},
		{"bidi isolate", "\u2066a\u2069", "\uFFFDa\uFFFD"},
		{"invalid UTF-8 run is one replacement", "a\xff\xfeb", "a\uFFFDb"},
		{"invalid UTF-8 alone", "\xc3", "\uFFFD"},
		{"non-ASCII letters stay", "Übersicht — 概要", "Übersicht — 概要"},
		{"replacement stays", "a\uFFFDb", "a\uFFFDb"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clean(tc.in); got != tc.want {
				t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"knowledge", "capability\x00", "\x1b]0;t\x07", "a\u202eb", "\xff\xfe", " \t x \n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Clean(s)
		if !utf8.ValidString(c) {
			t.Fatalf("Clean(%q) = %q is not UTF-8", s, c)
		}
		for _, r := range c {
			if refused(r) || r == '\t' || r == '\n' || r == '\r' {
				t.Fatalf("Clean(%q) = %q keeps %U", s, c, r)
			}
		}
		if again := Clean(c); again != c {
			t.Fatalf("Clean is not idempotent: %q then %q", c, again)
		}
	})
}

func TestCleanTextKeepsLinesAndReplacesControls(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "# Title\n\nText.\n", "# Title\n\nText.\n"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"tab kept", "a\tb", "a\tb"},
		{"nul and escape", "a\x00b\x1b[31mc", "a\uFFFDb\uFFFD[31mc"},
		{"bidi override", "a\u202eb", "a\uFFFDb"},
		{"invalid run", "a\xff\xfeb", "a\uFFFDb"},
		{"untrimmed", "  x  \n", "  x  \n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CleanText(tc.in); got != tc.want {
				t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestCleanTextReturnsACleanTextWithoutACopy: the texts a node keeps were
// cleaned when taken, and a site build cleans every one it loads again.
func TestCleanTextReturnsACleanTextWithoutACopy(t *testing.T) {
	for _, s := range []string{"# Title\n\n\tText, caf\u00e9 \u2713.\n", "", "plain"} {
		if allocs := testing.AllocsPerRun(10, func() { _ = CleanText(s) }); allocs != 0 {
			t.Errorf("CleanText(%q) allocated %v times, want none", s, allocs)
		}
	}
}

func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"# T\r\n\nbody\n", "a\x00\x1b]0;t\x07", "a\u202eb", "\xff\xfe", "\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := CleanText(s)
		if full := replaceText(s); c != full {
			t.Fatalf("CleanText(%q) = %q, but its pass over every character gives %q", s, c, full)
		}
		if !utf8.ValidString(c) {
			t.Fatalf("CleanText(%q) = %q is not UTF-8", s, c)
		}
		for _, r := range c {
			if r != '\t' && r != '\n' && refused(r) {
				t.Fatalf("CleanText(%q) = %q keeps %U", s, c, r)
			}
		}
		if again := CleanText(c); again != c {
			t.Fatalf("CleanText is not idempotent: %q then %q", c, again)
		}
	})
}
