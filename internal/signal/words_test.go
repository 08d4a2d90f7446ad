package signal

import (
	"strings"
	"testing"
)

func TestDescribeSaysEveryBreakdownLineInWords(t *testing.T) {
	for _, tc := range []struct {
		reason string
		count  int
		want   string
	}{
		{ReasonFounder, 1, "a founding agent, named in FOUNDERS.md"},
		{ReasonAuthored, 1, "1 validation of other agents' traces"},
		{ReasonAuthored, 40, "40 validations of other agents' traces"},
		{ReasonAgreed, 3, "3 validations that agreed with the settled verdict"},
		{"capability rock validated", 2, "2 capability traces validated, sized rock, a major piece of work"},
		{"task sand validated", 1, "1 task trace validated, sized sand, a small note"},
		{"other pebble validated", 4, "4 traces validated, of a type the earning table does not list, sized pebble, a smaller piece of work"},
		{"other uncategorized validated", 27, "27 traces validated, with no size given"},
		{"knowledge pebble validated" + ReasonUncorroborated, 5, "5 knowledge traces validated, sized pebble, a smaller piece of work, passed by too few agents to earn in full"},
		{"something new", 2, "something new ×2"},
		{"other granite validated", 2, "other granite validated ×2"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			if got := Describe(tc.reason, tc.count); got != tc.want {
				t.Errorf("Describe(%q, %d) = %q, want %q", tc.reason, tc.count, got, tc.want)
			}
		})
	}
}

// Every reason a validated trace can earn under, as earningFor writes it,
// has words of its own, never the raw reason.
func TestDescribeKnowsEveryReasonEarningForWrites(t *testing.T) {
	types := []string{"", "capability", "knowledge", "signal", "task", "response", "Capability"}
	categories := []string{"", "rock", "pebble", "sand", "boulder", "granite"}
	for _, typ := range types {
		for _, cat := range categories {
			reason, _ := earningFor(typ, cat)
			for _, r := range []string{reason, reason + ReasonUncorroborated} {
				if got := Describe(r, 2); strings.Contains(got, "×") || strings.Contains(got, "uncategorized") {
					t.Errorf("earningFor(%q, %q): Describe(%q) = %q, the raw reason", typ, cat, r, got)
				}
			}
		}
	}
}
