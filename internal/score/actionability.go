package score

import "fmt"

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
