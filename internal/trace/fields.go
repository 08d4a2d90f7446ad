package trace

import (
	"regexp"
	"strings"
)

const (
	// maxBoldLines is how far under the title bold fields are looked for;
	// real traces put them in the first dozen lines.
	maxBoldLines = 60
	// maxTrailingLines is the longest trailing block read.
	maxTrailingLines = 40
)

// Bold field shapes: "**Key:** value", "**Key**: value", "**Key: value**".
var boldPatterns = []*regexp.Regexp{
	regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z0-9 _-]{0,39}):\*\*\s*(.*)$`),
	regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z0-9 _-]{0,39})\*\*:\s*(.*)$`),
	regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z0-9 _-]{0,39}):\s*([^*]*)\*\*\s*$`),
}

// boldFields reads bold "**Field:** value" lines above the first section
// heading: below it, bold labels are prose ("**Test variant:** A").
func boldFields(lines []line) []field {
	var fields []field
	for i, l := range lines {
		if i >= maxBoldLines || (!l.fenced && strings.HasPrefix(l.text, "## ")) {
			break
		}
		if l.fenced {
			continue
		}
		text := strings.TrimSpace(l.text)
		if f, ok := plainField(text); ok {
			fields = append(fields, f)
			continue
		}
		for _, re := range boldPatterns {
			if m := re.FindStringSubmatch(text); m != nil {
				fields = append(fields, field{key: m[1], value: m[2]})
				break
			}
		}
	}
	return fields
}

// plainField reads an unadorned "Type: framework" line under the title
// (jarvis-maximum/101); only known metadata keys count, so that prose with
// a colon does not.
func plainField(text string) (field, bool) {
	m := keyLine.FindStringSubmatch(text)
	if m == nil || !trailingKeys[normalizeKey(m[1])] {
		return field{}, false
	}
	return field{key: m[1], value: m[2]}, true
}

// trailingKeys are the keys that make the lines after a final "---" a
// metadata block rather than prose.
var trailingKeys = map[string]bool{
	"type": true, "tags": true, "cites": true, "citations": true, "refs": true,
	"title": true, "agent": true, "date": true, "category": true,
}

// cutTrailingBlock finds a metadata block after the last "---" line:
// lowercase "key: value" lines (and "- item" lines under a key), at least
// one of them a known metadata key. It returns the lines before the "---"
// and the block's fields, or all lines and no fields.
func cutTrailingBlock(lines []line) ([]line, []field) {
	for i := len(lines) - 1; i >= 0 && len(lines)-i <= maxTrailingLines; i-- {
		if lines[i].fenced || strings.TrimSpace(lines[i].text) != "---" {
			continue
		}
		fields, ok := keyLines(lines[i+1:], true)
		if !ok {
			return lines, nil
		}
		for _, f := range fields {
			if trailingKeys[normalizeKey(f.key)] {
				return lines[:i], fields
			}
		}
		return lines, nil
	}
	return lines, nil
}

var (
	keyLine       = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_ -]{0,39}):(?:\s+(.*))?$`)
	strictKeyLine = regexp.MustCompile(`^([a-z_][a-z0-9_-]{0,39}):(?:\s+(.*))?$`)
	listItem      = regexp.MustCompile(`^\s*-\s+(.*)$`)
)

// keyLines reads lines that are all "key: value" or "- item" under a key
// (joined to its value with ", "); ok is false if any non-blank line is
// something else, or there is no key. strict asks for lowercase keys, to
// keep prose such as "Open question: who decides?" out.
func keyLines(lines []line, strict bool) ([]field, bool) {
	re := keyLine
	if strict {
		re = strictKeyLine
	}
	var fields []field
	for _, l := range lines {
		text := strings.TrimRight(l.text, " \t")
		switch m := re.FindStringSubmatch(text); {
		case strings.TrimSpace(text) == "":
		case m != nil:
			fields = append(fields, field{key: m[1], value: unquote(m[2])})
		case len(fields) > 0 && listItem.MatchString(text):
			f := &fields[len(fields)-1]
			f.value = strings.TrimPrefix(f.value+", "+unquote(listItem.FindStringSubmatch(text)[1]), ", ")
		default:
			return nil, false
		}
	}
	return fields, len(fields) > 0
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
