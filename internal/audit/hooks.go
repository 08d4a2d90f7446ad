package audit

import (
	"bytes"
	"html"
	"strings"
)

// The data attributes internal/site puts on what the files decide: a row
// of signal.html's standings carries data-agent, data-signal (exact, not
// the rounded figure shown) and data-tier; a trace page's article carries
// data-hash and data-status.
const (
	attrAgent  = "data-agent"
	attrSignal = "data-signal"
	attrTier   = "data-tier"
	attrHash   = "data-hash"
	attrStatus = "data-status"
)

// dataElements returns the data-* attributes of each start tag of page
// that carries any, names lowercased and values unescaped, in page order,
// at most limit of them, and whether the page holds more. It reads
// any bytes without failing: a tag it cannot finish (an unclosed quote,
// the end of the page) ends the scan, and what is not a tag is skipped.
// The site is ours, but the node serving it may not be.
func dataElements(page []byte, limit int) ([]map[string]string, bool) {
	var out []map[string]string
	for i := 0; i < len(page); {
		lt := bytes.IndexByte(page[i:], '<')
		if lt < 0 {
			break
		}
		i += lt + 1
		if bytes.HasPrefix(page[i:], []byte("!--")) {
			end := bytes.Index(page[i+3:], []byte("-->"))
			if end < 0 {
				break
			}
			i += 3 + end + 3
			continue
		}
		if i >= len(page) || !isLetter(page[i]) {
			continue
		}
		attrs, n, ok := startTag(page[i:])
		if !ok {
			break
		}
		i += n
		if len(attrs) > 0 {
			if len(out) == limit {
				return out, true
			}
			out = append(out, attrs)
		}
	}
	return out, false
}

// startTag reads a start tag after its '<': its name, then its
// attributes up to '>'. It returns the data-* attributes, the bytes
// read, and false when the tag does not end.
func startTag(s []byte) (map[string]string, int, bool) {
	i := 0
	for i < len(s) && !isSpace(s[i]) && s[i] != '>' && s[i] != '/' {
		i++
	}
	var attrs map[string]string
	for {
		for i < len(s) && (isSpace(s[i]) || s[i] == '/') {
			i++
		}
		if i >= len(s) {
			return nil, i, false
		}
		if s[i] == '>' {
			return attrs, i + 1, true
		}
		start := i
		for i < len(s) && !isSpace(s[i]) && s[i] != '=' && s[i] != '>' && s[i] != '/' {
			i++
		}
		name := strings.ToLower(string(s[start:i]))
		value, n, ok := attrValue(s[i:])
		if !ok {
			return nil, i, false
		}
		i += n
		if strings.HasPrefix(name, "data-") {
			if attrs == nil {
				attrs = map[string]string{}
			}
			attrs[name] = html.UnescapeString(value)
		}
	}
}

// attrValue reads what follows an attribute's name: nothing, or '='
// and a value, quoted or not.
func attrValue(s []byte) (string, int, bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i >= len(s) || s[i] != '=' {
		return "", 0, true
	}
	i++
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		end := bytes.IndexByte(s[i+1:], s[i])
		if end < 0 {
			return "", i, false
		}
		return string(s[i+1 : i+1+end]), i + 1 + end + 1, true
	}
	start := i
	for i < len(s) && !isSpace(s[i]) && s[i] != '>' {
		i++
	}
	return string(s[start:i]), i, true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
