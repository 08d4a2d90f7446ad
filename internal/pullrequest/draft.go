package pullrequest

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/validation"
)

// Marks of the draft block that follows the canonical fields of a draft
// validation. It is an HTML comment whose lines are indented and never
// "key: value" at column 0, so validation.Parse reads the file exactly as
// if the block were not there, and a page renders nothing of it.
const (
	DraftBlockStart = "<!-- meshnode:draft"
	DraftBlockEnd   = "-->"
)

// Suggestion is what the heuristic scorer proposed for one waiting trace.
type Suggestion struct {
	Validation validation.Validation // canonical fields, prefilled with the suggested scores
	Reasons    map[string][]string   // per dimension name: why it got its score
	Title      string                // the trace's title, for the pull request body
	Agent      string                // its author
}

// NewDraft renders a suggestion as a draft validation file at
// validations/<validation.FileName(hash)>: the canonical fields, then the
// draft block with the reasons. The same suggestion always gives the
// same bytes, which is how Sync tells a person's edit from its own draft.
func NewDraft(s Suggestion) Draft {
	v := s.Validation
	var b bytes.Buffer
	b.Write(v.Format())
	b.WriteString("\n" + DraftBlockStart + "\n")
	b.WriteString("  Suggested by the heuristic scorer for a person to check. Edit the scores,\n")
	b.WriteString("  total_score, result and notes above, then merge. This comment may stay.\n")
	for i, d := range validation.Dimensions {
		why := strings.Join(s.Reasons[d], "; ")
		if why == "" {
			why = "no reason given"
		}
		fmt.Fprintf(&b, "  %s %d/%d: %s\n", d, v.Scores[i], validation.MaxScore, commentSafe(why))
	}
	b.WriteString(DraftBlockEnd + "\n")
	return Draft{
		Path:     "validations/" + validation.FileName(v.TraceHash),
		Content:  b.Bytes(),
		TraceURL: v.TraceURL, Title: s.Title, Agent: s.Agent,
		Suggestion: fmt.Sprintf("%d/%d %s", v.Total, validation.MaxTotal, v.Result),
	}
}

// commentSafe keeps reason text on one line and unable to end the comment.
func commentSafe(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "--", "- -")
}
