package heartbeat

import (
	"fmt"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
)

// peers returns the agents to poll: those in AGENTS.md, then those learned
// by gossip in earlier heartbeats, never the node itself, each URL once.
//
// It also builds n.names, the binding of names to URLs (docs/decisions.md,
// "Names"): our own name first, then AGENTS.md in file order, then learned
// peers by URL. A line of AGENTS.md whose name is taken is skipped with a
// warning; a learned peer whose name is taken (a person bound it to
// another URL, or it predates this rule) is forgotten with what it
// published, so no impostor keeps a known name.
func (n *job) peers() ([]peer, error) {
	if n.snap.AgentsErr != nil {
		return nil, n.snap.AgentsErr
	}
	for _, p := range n.snap.AgentsProblems {
		n.log.Warn("AGENTS.md line skipped", "line", p.Line, "reason", p.Reason)
	}
	self, _ := roster.NormalizeURL(n.cfg.URL)
	n.names = roster.NewBinding()
	if err := n.names.Bind(n.cfg.Agent, self); err != nil {
		return nil, fmt.Errorf("bind our own name: %w", err)
	}
	var out []peer
	for _, k := range n.snap.Known(self) {
		if p, ok := n.bind(k); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// bind gives a known agent its name, or says why it may not poll under
// it: a line of AGENTS.md whose name is taken is skipped; a learned peer
// whose name is taken, or whose URL is not in canonical form, is
// forgotten.
func (n *job) bind(k node.Known) (peer, bool) {
	if k.Listed {
		if err := n.names.Bind(k.Name, k.URL); err != nil {
			n.log.Warn("AGENTS.md agent skipped", "peer", k.Name, "url", k.URL, "reason", err.Error())
			return peer{}, false
		}
		return peer{name: k.Name, url: k.URL}, true
	}
	if canon, err := roster.NormalizeURL(k.URL); err != nil || canon != k.URL {
		// Learned before URLs had one form: a second name for a URL
		// (docs/security.md), read again under its canonical form if
		// it is gossiped again.
		n.forgetPeer(k.URL, k.Name, fmt.Errorf("%s is not in canonical form %q", k.URL, canon))
		return peer{}, false
	}
	if err := n.names.BindGossip(k.Name, k.URL); err != nil {
		n.forgetPeer(k.URL, k.Name, err)
		return peer{}, false
	}
	return peer{name: k.Name, url: k.URL}, true
}

// forgetPeer drops a learned peer whose name is bound elsewhere, or whose
// URL is a second spelling of one, and what
// the ledger holds of it; the hashes of its files are no longer seen, so
// the agent the name belongs to is not refused the same bytes.
func (n *job) forgetPeer(url, name string, why error) {
	delete(n.state.Cursors, url)
	hashes := n.ledger.Forget(url)
	for _, h := range hashes {
		delete(n.state.SeenHashes, h)
	}
	n.log.Warn("learned peer forgotten", "peer", name, "url", url,
		"records", len(hashes), "reason", why.Error())
}
