package watch

import (
	"fmt"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/state"
)

// minNetworkPeers is how many peers a tick must poll before "most of them
// failed" says anything about the network rather than about one peer.
const minNetworkPeers = 2

// health remembers which peers are degraded and whether the network is, so
// each change is told once: degraded when a peer's circuit breaker opens
// (state.HourlyAfterFailures consecutive failures, docs/protocol.md §9.1),
// recovered at its next successful poll; the network degraded when most
// peers polled in one tick failed, recovered at the first tick where most
// answered.
type health struct {
	peers   map[string]string // URL → name of each degraded peer
	network bool
}

// observe compares the cursors after a tick with what health knew and
// returns the notices of what changed. polled and failed are the tick's
// counts; a tick that polled nobody says nothing about the network.
func (h *health) observe(cursors map[string]*state.Cursor, polled, failed int, now time.Time) []Event {
	if h.peers == nil {
		h.peers = map[string]string{}
	}
	var out []Event
	urls := make([]string, 0, len(cursors))
	for u := range cursors {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		c := cursors[u]
		name := c.Agent
		if name == "" {
			name = u
		}
		_, was := h.peers[u]
		switch {
		case !was && c.FailureCount >= state.HourlyAfterFailures:
			h.peers[u] = name
			out = append(out, Event{Time: now, Kind: EventDegraded, Peer: name, URL: u,
				Message: fmt.Sprintf("degraded: %s failed %d polls in a row (%s); polled %s until it answers", name, c.FailureCount, oneLine(c.LastError), backoffWord(c))})
		case was && c.FailureCount == 0:
			delete(h.peers, u)
			out = append(out, Event{Time: now, Kind: EventRecovered, Peer: name, URL: u,
				Message: fmt.Sprintf("recovered: %s answered again", name)})
		}
	}
	for u := range h.peers {
		if _, ok := cursors[u]; !ok {
			delete(h.peers, u) // forgotten by the node: nothing left to recover
		}
	}
	return append(out, h.observeNetwork(polled, failed, now)...)
}

func (h *health) observeNetwork(polled, failed int, now time.Time) []Event {
	if polled < minNetworkPeers {
		return nil
	}
	most := failed*2 > polled
	switch {
	case most && !h.network:
		h.network = true
		return []Event{{Time: now, Kind: EventDegraded,
			Message: fmt.Sprintf("degraded: the network: %d of %d peers failed at once; check this machine's connection", failed, polled)}}
	case !most && h.network:
		h.network = false
		return []Event{{Time: now, Kind: EventRecovered,
			Message: fmt.Sprintf("recovered: the network: %d of %d peers answered", polled-failed, polled)}}
	}
	return nil
}

// degraded lists the names of the degraded peers, sorted, with "network"
// first when the network is.
func (h *health) degraded() []string {
	names := []string{}
	for _, n := range h.peers {
		names = append(names, n)
	}
	sort.Strings(names)
	if h.network {
		names = append([]string{"network"}, names...)
	}
	return names
}

func backoffWord(c *state.Cursor) string {
	if c.Backoff == "" {
		return "less often"
	}
	return c.Backoff
}
