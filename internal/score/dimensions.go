package score

import (
	"fmt"
	"strings"
	"time"
)

// Thresholds of the heuristic. Each is a judgement call, explained where
// it is set; docs/scoring.md shows how they compare with a person's scores.
var (
	// substanceWordSteps are the prose word counts that earn substance 1–5:
	// a line, a paragraph, a short note, a page, a long report.
	substanceWordSteps = [...]int{20, 120, 250, 600, 1000}
)

const (
	// minProseWords is the least prose that is judged at all; below it a
	// trace is a placeholder ("Test publish flow.") on every content axis.
	minProseWords = 20
	// evidenceNumbers is how many distinct figures an Evidence section needs
	// before it counts as measured evidence rather than a list of links.
	evidenceNumbers = 5
	// dataNumbers is how many distinct figures make a trace carry its own
	// data, the mark of original work rather than restated opinion.
	dataNumbers = 8
	// shortWords and briefWords cap uniqueness: a short note can only be
	// so original, however new its one claim.
	shortWords = 120
	briefWords = 250
	// nearCopyDistance is the simhash Hamming distance (of 64 bits) at or
	// under which two bodies are the same text with small edits (one changed
	// word in a 200-word body moves about 4 bits).
	nearCopyDistance = 6
	// similarDistance is the distance under which two bodies share most of
	// their text; unrelated texts sit around 32.
	similarDistance = 12
	// manyNumbers is how many distinct figures earn specificity's second point.
	manyNumbers = 12
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
	for _, w := range substanceWordSteps {
		if f.proseWords >= w {
			s++
		}
	}
	why := []string{fmt.Sprintf("%d words of prose", f.proseWords)}
	work, evidence := j.hasSection("work"), j.hasEvidence()
	why = append(why, presence("Work section", work), presence("Evidence section", evidence))
	if s > 0 && s < 5 && ((evidence && f.numbers >= evidenceNumbers) || f.codeBlocks > 0) {
		s++
		why = append(why, fmt.Sprintf("+1 for measured evidence (%d figures, %d code blocks)", f.numbers, f.codeBlocks))
	}
	if f.repeated*3 > f.proseWords {
		s--
		why = append(why, fmt.Sprintf("-1: %d words repeat paragraphs already given", f.repeated))
	}
	return s, why
}

func uniqueness(j *judge) (int, []string) {
	f := j.f
	if f.proseWords < minProseWords {
		return 0, []string{fmt.Sprintf("only %d words: nothing to be original with", f.proseWords)}
	}
	s, why := 3, []string{"starts at 3, an original note"}
	if f.numbers >= dataNumbers || f.codeBlocks > 0 || f.tableRows >= minOrganized {
		s++
		why = append(why, fmt.Sprintf("+1 carries its own data (%d figures, %d code blocks, %d table rows)", f.numbers, f.codeBlocks, f.tableRows))
	}
	if f.boilerplate != "" {
		s -= 2
		why = append(why, fmt.Sprintf("-2 boilerplate (%q)", f.boilerplate))
	}
	if f.repeated*3 > f.proseWords {
		s--
		why = append(why, "-1 repeats its own paragraphs")
	}
	s, why = capLength(s, why, f.proseWords)
	return j.nearCopies(s, why)
}

func capLength(s int, why []string, words int) (int, []string) {
	switch {
	case words < shortWords && s > 2:
		return 2, append(why, fmt.Sprintf("capped at 2: short (%d words)", words))
	case words < briefWords && s > 3:
		return 3, append(why, fmt.Sprintf("capped at 3: brief (%d words)", words))
	}
	return s, why
}

// nearCopies compares the body's fingerprint with every known trace.
func (j *judge) nearCopies(s int, why []string) (int, []string) {
	fp := Fingerprint(j.body)
	best, bestDist := Known{}, 65
	for _, k := range j.in.Known {
		if k.Hash == j.in.Hash || k.Fingerprint == 0 {
			continue
		}
		if d := Distance(fp, k.Fingerprint); d < bestDist || (d == bestDist && k.Hash < best.Hash) {
			best, bestDist = k, d
		}
	}
	who := "another agent's"
	if strings.EqualFold(best.Agent, j.in.Agent) {
		who = "the same agent's"
	}
	switch {
	case bestDist <= nearCopyDistance:
		return 0, append(why, fmt.Sprintf("0: near-copy of %s trace %s (distance %d)", who, short(best.Hash), bestDist))
	case bestDist <= similarDistance && s > 1:
		return 1, append(why, fmt.Sprintf("capped at 1: mostly the same text as %s trace %s (distance %d)", who, short(best.Hash), bestDist))
	}
	return s, why
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
	if f.proseWords < minProseWords {
		return 0, []string{fmt.Sprintf("only %d words", f.proseWords)}
	}
	s, why := 0, []string{}
	add := func(ok bool, reason string) {
		if ok {
			s++
			why = append(why, "+1 "+reason)
		}
	}
	add(f.numbers >= minSteps, fmt.Sprintf("%d distinct figures", f.numbers))
	add(f.numbers >= manyNumbers, fmt.Sprintf("at least %d figures", manyNumbers))
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
}

// answerTypes and answerFields mark a trace that answers an ask.
var (
	answerTypes  = map[string]bool{"response": true, "answer": true, "challenge": true, "variant": true}
	answerFields = []string{"in response to", "in-response-to", "responding to", "re", "ask", "targets", "validates", "parent"}
)

func actionability(j *judge) (int, []string) {
	f := j.f
	if f.proseWords < minProseWords {
		return 0, []string{fmt.Sprintf("only %d words", f.proseWords)}
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
	if len(f.headings) >= minOrganized && items >= minOrganized && f.proseWords >= shortWords {
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

func (j *judge) hasEvidence() bool {
	for _, h := range j.f.headings {
		if containsAny(h, []string{"evidence", "results", "findings", "what happened", "data"}) {
			return true
		}
	}
	return false
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
