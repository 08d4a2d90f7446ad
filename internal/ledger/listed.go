package ledger

import (
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
)

// ListedBy reports whether the ledger records the trace of hash h as
// listed by the agent at url, or at url's canonical form
// (roster.NormalizeURL, which a respelled agent's records move to): its
// record in Traces is that agent's, or a copy of that agent's that its
// lister has not withdrawn (a mirror that dropped its row gave way to the
// author). withdrawn reports that the record in Traces is that agent's
// and marked withdrawn: the agent no longer lists the trace, and no other
// listing took its place (docs/decisions.md, "Taking a peer's text
// down"). Whoever acts on a queue item of the trace in the agent's name
// asks this: the heartbeat before it scores or publishes, the manual
// scorer before it offers the item to a person.
func (l *Ledger) ListedBy(url string, h manifest.Hash) (listed, withdrawn bool) {
	urls := []string{url}
	if canon, err := roster.NormalizeURL(url); err == nil && canon != url {
		urls = append(urls, canon)
	}
	for _, u := range urls {
		if t := l.Traces[h]; t != nil && t.AgentURL == u {
			return true, t.TakenDown == Withdrawn
		}
		if c := l.Copies[CopyKey(u, h)]; c != nil && c.TakenDown != Withdrawn {
			return true, false
		}
	}
	return false, false
}
