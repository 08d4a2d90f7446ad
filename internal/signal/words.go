package signal

import (
	"fmt"
	"strings"
)

// sizeWords says what each category of the v0.2 table means to a reader
// who has not read the spec: how big a piece of work the agent says a
// trace is.
var sizeWords = map[string]string{
	"rock":   "sized rock, a major piece of work",
	"pebble": "sized pebble, a smaller piece of work",
	"sand":   "sized sand, a small note",
}

// Describe says one line of a breakdown in words a visitor understands,
// count included: "27 traces validated, of a type and size the earning
// table does not list" for Reason "other uncategorized validated" ×27.
// It reads the reasons tally writes; a reason it does not know is
// returned as "reason ×count".
func Describe(reason string, count int) string {
	switch reason {
	case ReasonFounder:
		return "a founding agent, named in FOUNDERS.md"
	case ReasonAuthored:
		return fmt.Sprintf("%s of other agents' traces", plural(count, "validation", "validations"))
	case ReasonAgreed:
		return fmt.Sprintf("%s that agreed with the settled verdict", plural(count, "validation", "validations"))
	}
	line, uncorroborated := strings.CutSuffix(reason, ReasonUncorroborated)
	kind, ok := strings.CutSuffix(line, " validated")
	if !ok {
		return fmt.Sprintf("%s ×%d", reason, count)
	}
	var words string
	typ, category, _ := strings.Cut(kind, " ")
	switch {
	case kind == "other uncategorized":
		words = plural(count, "trace", "traces") + " validated, with no size given"
	case typ == "other" && sizeWords[category] != "":
		words = fmt.Sprintf("%s validated, of a type the earning table does not list, %s", plural(count, "trace", "traces"), sizeWords[category])
	case earnings[kind] != 0 && sizeWords[category] != "":
		words = fmt.Sprintf("%s validated, %s", plural(count, typ+" trace", typ+" traces"), sizeWords[category])
	default:
		return fmt.Sprintf("%s ×%d", reason, count)
	}
	if uncorroborated {
		words += ", passed by too few agents to earn in full"
	}
	return words
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
