package trace

import (
	"regexp"
	"strings"
)

// structure is what the headings of a trace say.
type structure struct {
	title    string   // first "# " heading, else the first heading of any level
	sections []string // "## " headings
	buildsOn []string // URLs and hashes listed under "## Builds On"
}

func readStructure(lines []line) structure {
	var s structure
	anyHeading := ""
	inBuildsOn := false
	for _, l := range lines {
		if l.fenced {
			continue
		}
		level, text := heading(l.text)
		switch {
		case level == 1 && s.title == "":
			s.title = text
		case level == 2:
			s.sections = append(s.sections, text)
		}
		if level > 0 {
			anyHeading = firstNonEmpty(anyHeading, text)
			inBuildsOn = level == 2 && strings.EqualFold(text, "builds on")
			continue
		}
		if inBuildsOn {
			s.buildsOn = append(s.buildsOn, references(l.text)...)
		}
	}
	s.title = firstNonEmpty(s.title, anyHeading)
	return s
}

// heading returns the level and text of an ATX heading line, or 0.
func heading(s string) (int, string) {
	level := 0
	for level < len(s) && level < 7 && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level >= len(s) || (s[level] != ' ' && s[level] != '\t') {
		return 0, ""
	}
	text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[level:]), "#"))
	if text == "" {
		return 0, ""
	}
	return level, text
}

var referencePattern = regexp.MustCompile(`https?://[^\s<>()\[\]"'` + "`" + `]+|(?i:sha256:[0-9a-f]{64})`)

// references finds the URLs and sha256 hashes in a line.
func references(s string) []string {
	var out []string
	for _, m := range referencePattern.FindAllString(s, -1) {
		out = append(out, strings.TrimRight(m, ".,;:"))
	}
	return out
}

// buildsOn merges a "Builds On" field with the "## Builds On" section,
// without repeats.
func buildsOn(field string, section []string) []string {
	refs := append(references(field), section...)
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
