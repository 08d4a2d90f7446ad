package heartbeat

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
)

// AgentsFile is the node's list of known agents.
const AgentsFile = node.AgentsFile

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
	data, err := readAgents(n.opts.Dir)
	if err != nil {
		return nil, err
	}
	agents, problems := roster.Parse(data)
	for _, p := range problems {
		n.log.Warn("AGENTS.md line skipped", "line", p.Line, "reason", p.Reason)
	}
	self, _ := roster.NormalizeURL(n.cfg.URL)
	n.names = roster.NewBinding()
	if err := n.names.Bind(n.cfg.Agent, self); err != nil {
		return nil, fmt.Errorf("bind our own name: %w", err)
	}
	var out []peer
	for _, a := range agents {
		if a.URL == self {
			continue
		}
		if err := n.names.Bind(a.Name, a.URL); err != nil {
			n.log.Warn("AGENTS.md agent skipped", "peer", a.Name, "url", a.URL, "reason", err.Error())
			continue
		}
		out = append(out, peer{name: a.Name, url: a.URL})
	}
	for _, url := range n.state.SortedURLs() {
		c := n.state.Cursors[url]
		if c.LearnedFrom == "" || url == self {
			continue
		}
		if canon, err := roster.NormalizeURL(url); err != nil || canon != url {
			// Learned before URLs had one form: a second name for a URL
			// (docs/security.md), read again under its canonical form if
			// it is gossiped again.
			n.forgetPeer(url, c.Agent, fmt.Errorf("%s is not in canonical form %q", url, canon))
			continue
		}
		if _, ok := n.names.Name(url); ok {
			continue // listed in AGENTS.md too, under the name given there
		}
		if err := n.names.BindGossip(c.Agent, url); err != nil {
			n.forgetPeer(url, c.Agent, err)
			continue
		}
		out = append(out, peer{name: c.Agent, url: url})
	}
	return out, nil
}

// readAgents reads the node's own AGENTS.md, nil when there is none. It is
// read as the site reads it: a symbolic link is refused, never followed
// (its target could be any file of the machine), and at most
// node.MaxTopFileBytes are read.
func readAgents(dir string) ([]byte, error) {
	data, err := node.ReadFile(dir, AgentsFile, node.MaxTopFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, node.ErrSymlink):
		return nil, fmt.Errorf("refusing to read %w: replace it with the file itself", err)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", AgentsFile, err)
	}
	return data, nil
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
