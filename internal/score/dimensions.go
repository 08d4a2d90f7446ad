package score

import (
	"fmt"
	"strings"
)

// Fixed thresholds of the heuristic. Each is a judgement call, explained
// where it is set; the calibration knobs are in Params (params.go).
const (
	// ThinWords is the least body (prose and code) that is judged at all:
	// below it a trace is a thin note ("Test publish flow.", a line that
	// points at code kept elsewhere) and scores 0 on uniqueness,
	// specificity and actionability, at most 1 on substance, so it cannot
	// pass (docs/scoring.md).
	ThinWords = 40
	// minNamed is how many distinct named systems (CamelCase names, version
	// numbers) count as naming the systems involved.
	minNamed = 3
	// minSteps is the shortest numbered list read as a procedure.
	minSteps = 3
	// minImperatives is how many list items must start with a verb ("Use …",
	// "Retry …") to read as instructions.
	minImperatives = 2
	// minInlineCode is how many inline code spans count as commands or
	// identifiers a reader can use.
	minInlineCode = 3
	// minOrganized is the heading and list-item count of a trace organized
	// beyond the required sections.
	minOrganized = 3
	// minMetadata is how many of agent, date, type and category must be
	// present for the metadata point.
	minMetadata = 3
	// organizedWords is the least body whose headings and lists read as
	// organization rather than a note's scaffolding.
	organizedWords = 120
	// minCommonPercent is the least share of common English words
	// ("the", "of", "is"…) in prose of ThinWords or more: readable prose
	// holds about a third, the tersest trace of the snapshot 5 %, random
	// syllables or bytes 1–2 %. Under it the prose is word salad and the
	// trace is scored as a thin note (docs/scoring.md).
	minCommonPercent = 3
)

func substance(j *judge) (int, []string) {
	f := j.f
	s := 0
	for _, w := range j.p.SubstanceWords {
		if j.words >= w {
			s++
		}
	}
	why := []string{fmt.Sprintf("%d words (%d of prose, %d of code)", j.words, f.proseWords, f.codeWords)}
	work, evidence := j.hasSection("work"), j.evidenceHeading()
	why = append(why, presence("Work section", work), evidenceReason(evidence))
	if s > 0 && s < 5 && ((evidence != "" && f.numbers >= j.p.EvidenceNumbers) || f.codeBlocks > 0) {
		s++
		why = append(why, fmt.Sprintf("+1 for measured evidence (%d figures, %d code blocks)", f.numbers, f.codeBlocks))
	}
	if f.repeated*3 > f.proseWords && f.repeated >= minRepeatedWords {
		s--
		why = append(why, fmt.Sprintf("-1: %d words repeat paragraphs already given", f.repeated))
	}
	if j.salad() && s > 1 {
		s = 1
		why = append(why, "capped at 1: "+j.saladReason())
	}
	return s, why
}

// salad reports whether the prose is word salad: enough words to judge,
// too few of them common English words (minCommonPercent).
func (j *judge) salad() bool {
	return j.f.lettered >= ThinWords && j.f.common*100 < j.f.lettered*minCommonPercent
}

func (j *judge) saladReason() string {
	return fmt.Sprintf("not prose: %d of %d words are common English words, under %d %%", j.f.common, j.f.lettered, minCommonPercent)
}

// unjudged says why a trace earns nothing on uniqueness, specificity and
// actionability: a thin note, or word salad scored as one.
func (j *judge) unjudged() (string, bool) {
	switch {
	case j.words < ThinWords:
		return fmt.Sprintf("thin note, %d words", j.words), true
	case j.salad():
		return j.saladReason(), true
	}
	return "", false
}

func uniqueness(j *judge) (int, []string) {
	f := j.f
	if why, ok := j.unjudged(); ok {
		return 0, []string{why + ": nothing to be original with"}
	}
	s, why := 3, []string{"starts at 3, an original note"}
	if f.numbers >= j.p.DataNumbers || f.codeBlocks > 0 || f.tableRows >= minOrganized {
		s++
		why = append(why, fmt.Sprintf("+1 carries its own data (%d figures, %d code blocks, %d table rows)", f.numbers, f.codeBlocks, f.tableRows))
	}
	if j.measured() {
		s++
		why = append(why, fmt.Sprintf("+1 first-hand measurement (%d figures beside code, commands or a table)", f.numbers))
	}
	if f.boilerplate != "" {
		s -= 2
		why = append(why, fmt.Sprintf("-2 boilerplate (%q)", f.boilerplate))
	}
	if f.repeated*3 > f.proseWords && f.repeated >= minRepeatedWords {
		s--
		why = append(why, "-1 repeats its own paragraphs")
	}
	s, why = capLength(s, why, j.words, j.p)
	return j.nearCopies(s, why)
}

func capLength(s int, why []string, words int, p *Params) (int, []string) {
	switch {
	case words < p.ShortWords && s > 2:
		return 2, append(why, fmt.Sprintf("capped at 2: short (%d words)", words))
	case words < p.BriefWords && s > 3:
		return 3, append(why, fmt.Sprintf("capped at 3: brief (%d words)", words))
	}
	return s, why
}

func specificity(j *judge) (int, []string) {
	f := j.f
	if why, ok := j.unjudged(); ok {
		return 0, []string{why}
	}
	s, why := 0, []string{}
	add := func(ok bool, reason string) {
		if ok {
			s++
			why = append(why, "+1 "+reason)
		}
	}
	add(f.numbers >= minSteps, fmt.Sprintf("%d distinct figures", f.numbers))
	add(f.numbers >= j.p.ManyNumbers, fmt.Sprintf("at least %d figures", j.p.ManyNumbers))
	add(f.urls > 0, fmt.Sprintf("%d URLs", f.urls))
	add(f.paths+f.inlineCode+f.commands >= 2, fmt.Sprintf("%d paths, %d inline code spans, %d commands", f.paths, f.inlineCode, f.commands))
	add(f.codeBlocks > 0, fmt.Sprintf("%d code blocks", f.codeBlocks))
	add(j.cites >= 2, fmt.Sprintf("cites %d traces", j.cites))
	add(f.named >= minNamed, fmt.Sprintf("names %d systems or versions", f.named))
	add(f.dates > 0, fmt.Sprintf("%d dates in the text", f.dates))
	if len(why) == 0 {
		why = append(why, "no figures, URLs, paths, code, citations or named systems")
	}
	return s, why
}

func presence(what string, ok bool) string {
	if ok {
		return what
	}
	return "no " + what
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// measured reports whether the trace reports first-hand measurement: many
// figures beside code, commands or a table.
func (j *judge) measured() bool {
	f := j.f
	return f.numbers >= j.p.MeasuredNumbers && (f.codeBlocks > 0 || f.commands > 0 || f.tableRows >= minOrganized)
}
