package peertext

import (
	"strings"
	"unicode/utf8"
)

// Replacement stands for each character Clean refuses, as it stands for
// bytes that are not UTF-8: the value visibly differs from one without
// them, and no two refused characters read as one known word.
const Replacement = "\uFFFD"

// Clean returns s as a metadata value: each tab, line feed and carriage
// return becomes a space; each other C0 control (NUL included), DEL, C1
// control, bidirectional control (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069) and each run of bytes that is not UTF-8 becomes U+FFFD;
// then white space at either end is removed. Clean(Clean(s)) == Clean(s).
func Clean(s string) string {
	if isClean(s) {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			i = pastInvalid(s, i)
			b.WriteString(Replacement)
			continue
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case refused(r):
			b.WriteString(Replacement)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return strings.TrimSpace(b.String())
}

// isClean reports whether s needs no replacement, the common case.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= utf8.RuneSelf {
			return isCleanSlow(s)
		}
	}
	return true
}

func isCleanSlow(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\t' || r == '\n' || r == '\r' || refused(r) {
			return false
		}
	}
	return true
}

// isCleanText reports whether CleanText would change nothing in s: the
// common case.
func isCleanText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c >= utf8.RuneSelf {
			return isCleanTextSlow(s)
		}
	}
	return true
}

func isCleanTextSlow(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && refused(r) {
			return false
		}
	}
	return true
}

// refused reports whether r is a control character Clean replaces: C0
// (but the white space it turns into spaces), DEL, C1, or a bidirectional
// control, which reorders what a terminal or page shows around it.
func refused(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// CleanText returns s, a peer's multi-line text (a trace's body), under
// the rule of Clean with its lines kept: line feeds and tabs stay,
// carriage returns go (CRLF becomes LF), and every other character Clean
// refuses, and each run of bytes that is not UTF-8, becomes U+FFFD.
// Nothing is trimmed. CleanText(CleanText(s)) == CleanText(s).
func CleanText(s string) string {
	// A text kept in the node's state was cleaned when it was taken, so
	// it is returned as it is, without a copy: a site build cleans the
	// 3,000 copies it loads, 6 MB, at every build.
	if isCleanText(s) {
		return s
	}
	return replaceText(s)
}

// replaceText is CleanText's pass over every character of s.
func replaceText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			i = pastInvalid(s, i)
			b.WriteString(Replacement)
			continue
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
		case refused(r):
			b.WriteString(Replacement)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// pastInvalid returns the index just past the run of bytes that are not
// UTF-8 starting at s[i]: one U+FFFD stands for the run, as in
// strings.ToValidUTF8.
func pastInvalid(s string, i int) int {
	for i < len(s) {
		if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
			break
		}
		i++
	}
	return i
}
