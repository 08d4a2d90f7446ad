package score

import (
	"fmt"
	"time"
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
