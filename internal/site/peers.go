package site

import (
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/state"
)

// loadPeers lists the agents the node knows (node.Snapshot.Known: the
// ones the heartbeat polls) with their cursors, each peer's presence at
// now and what the ledger holds of it.
func loadPeers(n *Node, snap *node.Snapshot, now time.Time) error {
	if snap.AgentsErr != nil {
		return snap.AgentsErr
	}
	l, st := snap.Ledger, snap.Cursors
	byURL := map[string]*Peer{}
	for _, k := range snap.Known(n.URL) {
		p := &Peer{Name: k.Name, URL: k.URL}
		byURL[k.URL] = p
		c := st.Cursors[k.URL]
		if c == nil {
			continue
		}
		p.LastSeenSeq, p.Failures, p.LastError = c.LastSeenSeq, c.FailureCount, c.LastError
		p.LastPolled, p.LastSuccess, p.LearnedFrom = c.LastPolled.UTC(), c.LastSuccess.UTC(), c.LearnedFrom
		p.Heartbeat = c.ManifestUpdated.UTC()
		if c.ManifestUpdated.IsZero() {
			p.Heartbeat = c.ManifestChanged.UTC()
		}
	}
	traces, votes := ledgerCounts(l)
	for _, p := range byURL {
		p.Presence = string(presence.Classify(presenceInput(st.Cursors[p.URL]), observedAt(st.Cursors[p.URL], now)))
		p.Traces, p.Validations = traces[p.URL], votes[p.URL]
		n.Peers = append(n.Peers, p)
	}
	sort.Slice(n.Peers, func(i, j int) bool {
		if n.Peers[i].Name != n.Peers[j].Name {
			return n.Peers[i].Name < n.Peers[j].Name
		}
		return n.Peers[i].URL < n.Peers[j].URL
	})
	return nil
}

// presenceInput is what the cursor knows of a peer's heartbeat; a peer
// never polled has no cursor and is offline. A peer polled and never
// reached is shown unreachable at once: it has no heartbeat to be judged
// by (docs/protocol.md §10), and "offline" would suggest it once had one;
// the 30 days of §9.2 only decide how often it is retried.
func presenceInput(c *state.Cursor) presence.Input {
	if c == nil {
		return presence.Input{}
	}
	return presence.Input{
		Updated:         c.ManifestUpdated,
		ManifestChanged: c.ManifestChanged,
		LastSuccess:     c.LastSuccess,
		Unreachable: c.Status == state.StatusUnreachable || c.Status == state.StatusGone ||
			(c.LastSuccess.IsZero() && c.FailureCount > 0),
	}
}

// observedAt is the time a peer's presence is judged at: now, or the last
// successful poll of a quiet peer polled less often (state.ObservedAt).
func observedAt(c *state.Cursor, now time.Time) time.Time {
	if c == nil {
		return now
	}
	return c.ObservedAt(now)
}

// ledgerCounts counts the traces and validations seen per agent URL, in
// one pass over the ledger.
func ledgerCounts(l *ledger.Ledger) (traces, votes map[string]int) {
	traces, votes = map[string]int{}, map[string]int{}
	for _, t := range l.Traces {
		if t != nil {
			traces[t.AgentURL]++
		}
	}
	for _, v := range l.Validations {
		if v != nil {
			votes[v.ValidatorURL]++
		}
	}
	return traces, votes
}
