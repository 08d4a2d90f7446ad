package trace

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"
)

// decodeBase64 undoes a quirk of one real publisher, who served some traces
// as one line of base64 (noobagent/041): when the whole file is standard
// base64 of UTF-8 markdown, the decoded text is what is read. The hash is
// still of the bytes served; only the reading changes.
func decodeBase64(data []byte) ([]byte, bool) {
	s := bytes.TrimSpace(data)
	if len(s) < 16 || bytes.ContainsAny(s, " \t#*") {
		return data, false
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, s)
	if err != nil || !utf8.Valid(out[:n]) || !looksLikeMarkdown(out[:n]) {
		return data, false
	}
	return out[:n], true
}

func looksLikeMarkdown(b []byte) bool {
	t := bytes.TrimSpace(b)
	return bytes.HasPrefix(t, []byte("#")) || bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("**"))
}

var (
	bracketPattern = regexp.MustCompile(`^\[([A-Za-z][A-Za-z0-9_-]{0,39})\]\s+(\S.*)$`)
	pipePattern    = regexp.MustCompile(`^[0-9]{1,9}\s*\|\s*([A-Za-z][A-Za-z0-9_-]{0,39})\s*\|\s*(\S.*)$`)
)

// bracketTitle reads the "[type] Title" (jarvis-maximum/080) and
// "071 | type | Title" (jarvis-maximum/071) first lines some traces carry
// instead of any other metadata.
func bracketTitle(lines []line) []field {
	for _, l := range lines {
		text := strings.TrimSpace(l.text)
		if text == "" {
			continue
		}
		m := bracketPattern.FindStringSubmatch(text)
		if m == nil {
			m = pipePattern.FindStringSubmatch(text)
		}
		if m == nil || l.fenced {
			return nil
		}
		return []field{{key: "type", value: m[1]}, {key: "title", value: m[2]}}
	}
	return nil
}
