package validation

import (
	"regexp"
	"strings"
)

// maxLines bounds how much of a file is read; a validation is a page.
const maxLines = 2000

// doc is what a scan of a possible validation found, before the layout is
// decided.
type doc struct {
	plain    map[string]string // column-0 "key: value" lines, lowercase keys
	bold     map[string]string // "**Key:** value" lines, lowercased keys
	scores   map[string]string // canonical "scores:" block, indented lines
	sections map[string][]string
	title    string   // first "# " heading
	headings []string // every heading, in order
}

var (
	plainLine = regexp.MustCompile(`^([a-z_][a-z0-9_]{0,39}):(?:\s+(.*))?$`)
	dimLine   = regexp.MustCompile(`^\s+([A-Za-z_]+):\s*(.*)$`)
	listLine  = regexp.MustCompile(`^\s*[-*+]\s+\**([A-Za-z][A-Za-z ]{0,39}?)\**\s*:\**\s*(.*)$`)
	boldLines = []*regexp.Regexp{
		regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z0-9 _-]{0,39}):\*\*\s*(.*)$`),
		regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z0-9 _-]{0,39})\*\*:\s*(.*)$`),
		regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z0-9 _-]{0,39}):\s*([^*]*)\*\*\s*$`),
	}
)

func scan(data string) *doc {
	d := &doc{plain: map[string]string{}, bold: map[string]string{}, scores: map[string]string{}, sections: map[string][]string{}}
	lines := strings.Split(data, "\n")
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	inScores, section := false, ""
	for _, raw := range lines {
		l := strings.ReplaceAll(strings.TrimSuffix(raw, "\r"), "\r", " ")
		if inScores {
			if m := dimLine.FindStringSubmatch(l); m != nil {
				setFirst(d.scores, strings.ToLower(m[1]), m[2])
				continue
			}
			inScores = strings.TrimSpace(l) == ""
		}
		if level, text := heading(l); level > 0 {
			d.headings = append(d.headings, text)
			if level == 1 && d.title == "" {
				d.title = text
			}
			section = strings.ToLower(text)
			continue
		}
		if section != "" {
			d.sections[section] = append(d.sections[section], l)
		}
		inScores = d.line(l) || inScores
	}
	return d
}

// line records one line's key and reports whether it opens the scores
// block.
func (d *doc) line(l string) bool {
	if m := plainLine.FindStringSubmatch(l); m != nil {
		setFirst(d.plain, m[1], m[2])
		return m[1] == "scores" && strings.TrimSpace(m[2]) == ""
	}
	t := strings.TrimSpace(l)
	for _, re := range boldLines {
		if m := re.FindStringSubmatch(t); m != nil {
			setFirst(d.bold, strings.ToLower(strings.TrimSpace(m[1])), m[2])
			break
		}
	}
	return false
}

func setFirst(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = oneLine(v)
	}
}

// heading returns the level and text of an ATX heading, or 0.
func heading(s string) (int, string) {
	level := 0
	for level < len(s) && level < 7 && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level >= len(s) || s[level] != ' ' {
		return 0, ""
	}
	return level, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[level:]), "#"))
}

// sectionScores reads a "## Scores" list: "- Substance: 4", "- **Substance:** 4/5".
func (d *doc) sectionScores() map[string]string {
	out := map[string]string{}
	for _, l := range d.sections["scores"] {
		if m := listLine.FindStringSubmatch(l); m != nil {
			setFirst(out, strings.ToLower(strings.TrimSpace(m[1])), m[2])
		}
	}
	return out
}

// sectionText joins a section's lines into one paragraph.
func (d *doc) sectionText(name string) string {
	return oneLine(strings.Join(d.sections[name], " "))
}

var refPattern = regexp.MustCompile(`(?:^|[\s(\[@"'])([A-Za-z][A-Za-z0-9._-]{0,63})/([0-9]{1,9})(?:$|[^A-Za-z0-9/.])`)

// traceRef finds the first "agent/seq" reference in s, as "agent/seq" with
// the agent lowercased.
func traceRef(s string) string {
	m := refPattern.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1]) + "/" + m[2]
}

// verdict maps the words validators use to a result, or "".
func verdict(s string) string {
	v := strings.ToLower(s)
	for _, w := range []string{"invalid", "not valid", "fail", "reject", "refute"} {
		if strings.Contains(v, w) {
			return ResultFail
		}
	}
	for _, w := range []string{"pass", "valid", "verified", "confirm", "accept"} {
		if strings.Contains(v, w) {
			return ResultPass
		}
	}
	return ""
}
