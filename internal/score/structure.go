package score

import (
	"fmt"
	"strings"
)

func structure(j *judge) (int, []string) {
	f := j.f
	s, why := 0, []string{}
	if j.title != "" {
		s++
		why = append(why, "+1 title")
	} else {
		why = append(why, "no title")
	}
	meta := 0
	for _, k := range []string{"agent", "date", "type", "category"} {
		if f.fields[k] != "" {
			meta++
		}
	}
	if meta >= minMetadata {
		s++
		why = append(why, fmt.Sprintf("+1 metadata (%d of agent, date, type, category)", meta))
	} else {
		why = append(why, fmt.Sprintf("metadata incomplete (%d of agent, date, type, category)", meta))
	}
	s, why = j.requiredSections(s, why)
	items := f.listItems + f.numberedItems + f.tableRows
	items += f.codeBlocks
	if len(f.headings) >= minOrganized && items >= minOrganized && j.words >= organizedWords {
		s++
		why = append(why, fmt.Sprintf("+1 organized (%d headings, %d list items and rows)", len(f.headings), items))
	}
	return s, why
}

// requiredSections scores the v0.2 trace format's sections.
func (j *judge) requiredSections(s int, why []string) (int, []string) {
	have, missing := 0, []string{}
	for _, name := range []string{"work", "evidence", "connections"} {
		if j.hasSection(name) {
			have++
		} else {
			missing = append(missing, "## "+strings.ToUpper(name[:1])+name[1:])
		}
	}
	switch {
	case have == 3:
		s += 2
		why = append(why, "+2 all v0.2 sections (Work, Evidence, Connections)")
	case have == 2:
		s++
		why = append(why, "+1 two of three v0.2 sections, missing "+strings.Join(missing, ", "))
	default:
		why = append(why, "missing v0.2 sections "+strings.Join(missing, ", "))
	}
	if j.hasSection("builds on") {
		why = append(why, "has the optional Builds On section")
	}
	return s, why
}

func (j *judge) hasSection(name string) bool {
	for _, h := range j.f.headings {
		if h == name || strings.HasPrefix(h, name+" ") || strings.HasPrefix(h, name+":") {
			return true
		}
	}
	return false
}

// evidenceHeading returns the first heading that reads as evidence
// (Evidence, Results, Findings, What happened, Data…), or "".
func (j *judge) evidenceHeading() string {
	for _, h := range j.f.headings {
		if containsAny(h, []string{"evidence", "results", "findings", "what happened", "data"}) {
			return h
		}
	}
	return ""
}

// evidenceReason names the evidence section substance found. Only
// "## Evidence" itself is the v0.2 section structure asks for; another
// heading is named, so the two dimensions do not seem to disagree.
func evidenceReason(h string) string {
	switch {
	case h == "":
		return "no Evidence section"
	case h == "evidence" || strings.HasPrefix(h, "evidence ") || strings.HasPrefix(h, "evidence:"):
		return "Evidence section"
	}
	return fmt.Sprintf("evidence-like section %q (not the v0.2 ## Evidence)", h)
}
