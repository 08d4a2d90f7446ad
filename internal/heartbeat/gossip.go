package heartbeat

import (
	"context"
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/roster"
)

// gossip reads the peer's AGENTS.md and keeps the agents it lists.
func (pl *poller) gossip(ctx context.Context, r *pollResult) {
	r.requests++
	resp, err := pl.client.Get(ctx, r.peer.request(r.peer.url+roster.FileName, pl.limits.agents))
	if err != nil {
		return // AGENTS.md is optional: its absence is no failure of the peer
	}
	agents, _ := roster.Parse(resp.Body)
	r.learned = agents
}

// Gossip limits for one peer's AGENTS.md, beside the gossip.* keys of
// mesh.yaml that bound the whole heartbeat (docs/security.md).
const (
	// maxLearnedPerPeer bounds the peers one peer's gossip adds in one
	// heartbeat: the real mesh lists 15 agents, so a fork learns it in one
	// heartbeat, while one peer listing thousands cannot take the whole
	// gossip.max_new_peers_per_heartbeat from the others.
	maxLearnedPerPeer = 16
	// maxLearnedFrom bounds the peers learned from one peer in all: a peer
	// may vouch for a mesh seven times the real one, not fill
	// gossip.max_peers with hosts of its own.
	maxLearnedFrom = 100
	// maxGossipWarnings bounds the refused lines logged per peer and
	// heartbeat; the rest are counted in one line.
	maxGossipWarnings = 5
)

// learn keeps agents a peer lists in its AGENTS.md that we do not know,
// within the gossip caps. Gossip is untrusted: names and URLs were already
// validated by the roster parser, the private-address guard applies when
// they are polled, the caps bound what one peer can add, and the binding
// refuses a name already bound to another URL, ours, or a look-alike of
// one (docs/decisions.md, "Names"); a URL whose state files a known URL's
// would share is refused too (mayLearn).
func (n *job) learn(r *pollResult) {
	if len(r.learned) == 0 {
		return
	}
	self, _ := roster.NormalizeURL(n.cfg.URL)
	from := n.learnedFrom(r.peer.url)
	added, refused := 0, 0
	for _, a := range r.learned {
		if a.URL == self || n.state.Cursors[a.URL] != nil {
			if name, ok := n.names.Name(a.URL); ok && roster.Fold(name) != roster.Fold(a.Name) {
				refused++
				n.gossipRefused(r, refused, a, fmt.Errorf("%s is known as %s", a.URL, name))
			}
			continue
		}
		if n.sum.PeersLearned >= n.cfg.Gossip.MaxNewPeersPerHeartbeat || len(n.state.Cursors) >= n.cfg.Gossip.MaxPeers ||
			added >= maxLearnedPerPeer || from+added >= maxLearnedFrom {
			break
		}
		if err := n.mayLearn(a); err != nil {
			refused++
			n.gossipRefused(r, refused, a, err)
			continue
		}
		c := n.state.Cursor(a.URL)
		c.Agent, c.LearnedFrom = a.Name, r.peer.url
		added++
		n.sum.PeersLearned++
		n.log.Info("learned peer", "peer", a.Name, "url", a.URL, "from", r.peer.url)
	}
	if refused > maxGossipWarnings {
		n.log.Warn("gossip lines ignored", "from", r.peer.url, "count", refused)
	}
}

// mayLearn binds a gossiped agent we do not know, or says why it is
// refused: its URL the other scheme of a known one, its state files a
// known URL's (holdStateKey), or its name taken.
func (n *job) mayLearn(a roster.Agent) error {
	if err := n.notSchemeTwin(a.URL); err != nil {
		return err
	}
	if err := n.stateKeyHeld(a.URL); err != nil {
		return err
	}
	if err := n.names.BindGossip(a.Name, a.URL); err != nil {
		return err
	}
	return n.holdStateKey(a.URL)
}

// notSchemeTwin refuses a gossiped URL that differs from a known one
// only in its scheme (http://H/P beside https://H/P): both name one
// server's files on the public mesh, where a host redirects one to the
// other, so the second would be the known agent polled again as a new one
// and its files recorded as copies of its own (docs/decisions.md,
// "Names"). Known is our own URL, a bound name's or a cursor's.
func (n *job) notSchemeTwin(url string) error {
	if err := n.twinUnbound(url); err != nil {
		return err
	}
	if twin, ok := schemeTwin(url); ok && n.state.Cursors[twin] != nil {
		return fmt.Errorf("%s is the other scheme of %s, known", url, twin)
	}
	return nil
}

// twinUnbound refuses a URL whose other scheme is bound to a name.
func (n *job) twinUnbound(url string) error {
	twin, ok := schemeTwin(url)
	if !ok {
		return nil
	}
	if name, bound := n.names.Name(twin); bound {
		return fmt.Errorf("%s is the other scheme of %s, known as %s", url, twin, name)
	}
	return nil
}

// schemeTwin is url with https for http or http for https, and whether
// url has either scheme. URLs are compared in canonical form
// (roster.NormalizeURL), which drops the default ports, so the twin of
// https://H/P is http://H/P.
func schemeTwin(url string) (string, bool) {
	if rest, ok := strings.CutPrefix(url, "https://"); ok {
		return "http://" + rest, true
	}
	if rest, ok := strings.CutPrefix(url, "http://"); ok {
		return "https://" + rest, true
	}
	return "", false
}

// gossipRefused logs the first few gossip lines of a peer that were
// refused.
func (n *job) gossipRefused(r *pollResult, nth int, a roster.Agent, why error) {
	if nth <= maxGossipWarnings {
		n.log.Warn("gossip line ignored", "from", r.peer.url, "peer", a.Name, "url", a.URL, "reason", why.Error())
	}
}

// learnedFrom counts the known peers learned from the peer at url.
func (n *job) learnedFrom(url string) int {
	count := 0
	for _, c := range n.state.Cursors {
		if c.LearnedFrom == url {
			count++
		}
	}
	return count
}
