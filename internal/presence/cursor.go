package presence

import (
	"time"

	"github.com/meshnode/meshnode/internal/state"
)

// Of judges the peer whose cursor is c (nil for a peer never polled) at
// now. It is the one computation of presence: `meshnode peers` and the
// site both call it. A quiet peer polled less often is judged as of its
// last successful poll (state.Cursor.ObservedAt): judging it at now would
// call stale a peer we simply did not look at.
func Of(c *state.Cursor, now time.Time) Judgement {
	if c == nil {
		return Classify(Input{}, now)
	}
	return Classify(Input{
		Updated:      c.ManifestUpdated,
		NewestEntry:  c.NewestEntry,
		Polled:       !c.LastPolled.IsZero() || !c.LastSuccess.IsZero() || c.FailureCount > 0,
		LastSuccess:  c.LastSuccess,
		FirstFailure: c.FirstFailure,
		Unreachable:  c.Status == state.StatusUnreachable || c.Status == state.StatusGone,
	}, c.ObservedAt(now))
}
