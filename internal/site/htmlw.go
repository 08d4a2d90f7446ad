package site

import (
	"bytes"
	"strconv"
	"strings"
)

// htmlw writes HTML by hand for the pages a build renders by the
// thousand, where html/template's reflection was a quarter of a cold
// build's CPU. Its escapers give the bytes html/template gives in the
// same contexts (text, quoted attribute, URL attribute), which
// TestTracePageMatchesTemplate checks against the template it replaces.
type htmlw struct {
	*bytes.Buffer
}

// htmlEscapes is html/template's replacement table for text and quoted
// attribute values; it replaces ASCII only, so a byte-wise walk matches
// its rune-wise one, invalid UTF-8 included.
var htmlEscapes = [128]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

// text writes s escaped for HTML text or a quoted attribute value.
func (w htmlw) text(s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 128 || htmlEscapes[c] == "" {
			continue
		}
		w.WriteString(s[last:i])
		w.WriteString(htmlEscapes[c])
		last = i + 1
	}
	w.WriteString(s[last:])
}

// int writes n in decimal.
func (w htmlw) int(n int) {
	var b [20]byte
	w.Write(strconv.AppendInt(b[:0], int64(n), 10))
}

// url writes s as html/template writes a value at the start of a URL
// attribute or right after another value there (html/template checks
// each such value, not only the first; after literal text it would not):
// a scheme other than http, https or mailto becomes
// "#ZgotmplZ", bytes outside a URL's are percent-encoded, and the result
// is escaped as an attribute value.
func (w htmlw) url(s string) {
	if !templateSafeURL(s) {
		w.WriteString("#ZgotmplZ")
		return
	}
	last := 0
	for i := 0; i < len(s); i++ {
		if urlKeeps(s, i) {
			continue
		}
		w.text(s[last:i])
		w.WriteString("%" + hexByte(s[i]))
		last = i + 1
	}
	w.text(s[last:])
}

// templateSafeURL is html/template's isSafeURL.
func templateSafeURL(s string) bool {
	scheme, _, ok := strings.Cut(s, ":")
	if !ok || strings.Contains(scheme, "/") {
		return true
	}
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") || strings.EqualFold(scheme, "mailto")
}

// urlKeeps reports whether html/template's URL normalizer leaves s[i]
// as it is: a byte a URL may hold, or a '%' that starts an escape (with
// html/template's quirk that the escape must not end s).
func urlKeeps(s string, i int) bool {
	c := s[i]
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '%':
		return i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2])
	}
	return strings.IndexByte("!#$&*+,/:;=?@[]-._~", c) >= 0
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hexByte is c in two lowercase hex digits.
func hexByte(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
