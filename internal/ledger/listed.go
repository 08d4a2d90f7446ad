package ledger

import (
	"github.com/meshnode/meshnode/internal/manifest"
)

// ListedBy reports whether the ledger records the trace of hash h as
// listed by the agent at url (an agent that moved or was respelled took
// its records and its queue items along: the heartbeat's moveAgent): its
// record in Traces is that agent's, or a copy of that agent's that its
// lister has not withdrawn (a mirror that dropped its row gave way to the
// author). withdrawn reports that the record in Traces is that agent's
// and marked withdrawn: the agent no longer lists the trace, and no other
// listing took its place (docs/decisions.md, "Taking a peer's text
// down"). Whoever acts on a queue item of the trace in the agent's name
// asks this: the heartbeat before it scores or publishes, the manual
// scorer before it offers the item to a person.
func (l *Ledger) ListedBy(url string, h manifest.Hash) (listed, withdrawn bool) {
	if t := l.Traces[h]; t != nil && t.AgentURL == url {
		return true, t.TakenDown == Withdrawn
	}
	if c := l.Copies[CopyKey(url, h)]; c != nil && c.TakenDown != Withdrawn {
		return true, false
	}
	return false, false
}
