package score

import (
	"fmt"
	"strings"
	"time"
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

// freshnessSteps map a trace's age to its freshness score: docs/protocol.md §1: a node polls
// every 30 minutes, so a trace a few days old is current; the 90-day
// eviction of seen hashes marks the end of its useful life.
var freshnessSteps = []struct {
	age   time.Duration
	score int
}{
	{3 * 24 * time.Hour, 5},
	{7 * 24 * time.Hour, 4},
	{15 * 24 * time.Hour, 3},
	{30 * 24 * time.Hour, 2},
	{90 * 24 * time.Hour, 1},
}

// futureSlack tolerates clocks that disagree by up to a day before a date
// counts as "in the future".
const futureSlack = 24 * time.Hour

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

// nearCopies scores a trace that repeats a known one: the copy adds
// nothing of its own.
func (j *judge) nearCopies(s int, why []string) (int, []string) {
	switch {
	case j.copyDist <= j.p.NearCopyDistance:
		return 0, append(why, "0: near-copy of "+j.copyOf())
	case j.copyDist <= j.p.SimilarDistance && s > 1:
		return 1, append(why, "capped at 1: mostly the same text as "+j.copyOf())
	}
	return s, why
}

// copyOf names the nearest known trace, for reasons.
func (j *judge) copyOf() string {
	who := "another agent's"
	if strings.EqualFold(j.nearest.Agent, j.in.Agent) {
		who = "the same agent's"
	}
	return fmt.Sprintf("%s trace %s (distance %d)", who, short(j.nearest.Hash), j.copyDist)
}

func short(hash string) string {
	h := strings.TrimPrefix(hash, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return h
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

// actionHeadings are words in a heading that announce something to do.
var actionHeadings = []string{
	"next", "step", "how to", "recommend", "fix", "playbook", "usage", "action", "rules", "implement",
	"what to do", "should do", "propos", "backoff", "endpoint", "spec", "quickstart", "checklist",
	"suggest", "call to action", "test", "adoption", "the real test", "trigger",
	"lesson", "broke", "pitfall", "gotcha", "mistake", "what works", "example", "guide", "how we",
}

// answerTypes and answerFields mark a trace that answers an ask.
var (
	answerTypes  = map[string]bool{"response": true, "answer": true, "challenge": true, "variant": true}
	answerFields = []string{"in response to", "in-response-to", "responding to", "re", "ask", "targets", "validates", "parent"}
)

func actionability(j *judge) (int, []string) {
	f := j.f
	if why, ok := j.unjudged(); ok {
		return 0, []string{why}
	}
	s, why := 0, []string{}
	n := 0
	for _, h := range f.headings {
		if containsAny(h, actionHeadings) {
			n++
		}
	}
	if n > 0 {
		s += min(n, 2)
		why = append(why, fmt.Sprintf("+%d for %d sections that say what to do", min(n, 2), n))
	}
	if f.numberedItems >= minSteps {
		s++
		why = append(why, fmt.Sprintf("+1 %d numbered steps", f.numberedItems))
	}
	if f.codeBlocks > 0 || f.commands > 0 || f.inlineCode >= minInlineCode {
		s++
		why = append(why, fmt.Sprintf("+1 commands or code (%d blocks, %d commands, %d inline)", f.codeBlocks, f.commands, f.inlineCode))
	}
	if f.codeBlocks >= j.p.WorkedExamples || f.commands >= j.p.ManyCommands {
		s++
		why = append(why, fmt.Sprintf("+1 worked examples to copy (%d code blocks, %d command lines)", f.codeBlocks, f.commands))
	}
	if n := f.imperatives + f.imperativeHeadings; n >= minImperatives {
		s++
		why = append(why, fmt.Sprintf("+1 %d instructions (list items or headings that start with a verb)", n))
	}
	if j.answersAsk() {
		s++
		why = append(why, "+1 answers an ask or another trace")
	}
	if len(why) == 0 {
		why = append(why, "no steps, commands, code, recommendations or answered ask")
	}
	return s, why
}

func (j *judge) answersAsk() bool {
	if answerTypes[j.typ] {
		return true
	}
	for _, k := range answerFields {
		if j.f.fields[k] != "" {
			return true
		}
	}
	return false
}

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

func freshness(j *judge) (int, []string) {
	if j.when.IsZero() {
		return 1, []string{"no submitted time or date: age unknown"}
	}
	age := j.in.Now.Sub(j.when)
	if age < -futureSlack {
		return 1, []string{fmt.Sprintf("dated %s, in the future", j.when.UTC().Format(time.DateOnly))}
	}
	s := 0
	for _, st := range freshnessSteps {
		if age <= st.age {
			s = st.score
			break
		}
	}
	why := []string{fmt.Sprintf("%s old", humanAge(age))}
	if j.cites+j.buildsOn == 0 {
		s--
		why = append(why, "-1 cites or builds on no earlier trace")
	} else {
		why = append(why, fmt.Sprintf("builds on %d earlier traces", j.cites+j.buildsOn))
	}
	return s, why
}

func humanAge(d time.Duration) string {
	if d < 48*time.Hour {
		return fmt.Sprintf("%d hours", max(int(d.Hours()), 0))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
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
