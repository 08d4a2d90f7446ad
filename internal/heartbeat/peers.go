package heartbeat

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
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
		n.sum.AgentsSkipped = append(n.sum.AgentsSkipped, p.String())
	}
	if err := n.adoptRespelled(); err != nil {
		return nil, err
	}
	self, _ := roster.NormalizeURL(n.cfg.URL)
	if err := n.adoptMoved(self); err != nil {
		return nil, err
	}
	n.names = roster.NewBinding()
	if err := n.names.Bind(n.cfg.Agent, self); err != nil {
		return nil, fmt.Errorf("bind our own name: %w", err)
	}
	n.stateKeys = nil
	if err := n.holdStateKey(self); err != nil {
		return nil, err
	}
	var out []peer
	var forgotten []string
	for _, k := range n.snap.Known(self) {
		if p, ok := n.bind(k); ok {
			out = append(out, p)
		} else if !k.Listed {
			// A learned peer bind refuses is forgotten (forgetPeer).
			forgotten = append(forgotten, k.URL)
		}
	}
	n.holdCursorKeys()
	if err := n.dropItemsOf(forgotten); err != nil {
		return nil, err
	}
	if err := n.forgetPins(out); err != nil {
		return nil, err
	}
	return out, nil
}

// forgetPins drops the pins of the signed logs of the URLs the node
// neither polls nor keeps a cursor of: a learned peer just forgotten
// (forgetPeer), or one an older node forgot, which left its pin behind.
// A pin is the node's trust in the log at one URL, and goes with what
// else the node knew of the peer there: kept, it would refuse as a key
// change the log of the next agent a person lists at that URL, and show
// a forgotten peer's alarm for ever. A second spelling of a polled URL is
// no exception: that URL's pin is its own (docs/decisions.md, "Reading a
// peer's signed log"). Saved at once, as a moved pin is: the cursor goes
// last, so a run stopped before forgets again.
func (n *job) forgetPins(polled []peer) error {
	keep := make(map[string]bool, len(polled))
	for _, p := range polled {
		keep[p.url] = true
	}
	gone := n.pins.Keep(func(url string) bool { return keep[url] || n.state.Cursors[url] != nil })
	if len(gone) == 0 {
		return nil
	}
	for _, url := range gone {
		n.log.Warn("log pin of a forgotten peer dropped", "url", url)
	}
	changed, err := n.pins.Save()
	n.sum.Changed = n.sum.Changed || changed
	return err
}

// dropItemsOf drops from the queue the items at work of the peers at
// urls, just forgotten: the queue takes a trace once by hash, so an item
// an impostor's listing left would keep the agent that lists the same
// bytes out of it, and scoring it would fetch from, and name as the
// trace's URL, a peer the node forgot. Their traces are queued again
// from the agent that lists them: now when the ledger holds its listing
// (requeueDropped), else when this heartbeat reads it.
func (n *job) dropItemsOf(urls []string) error {
	if len(urls) == 0 {
		return nil
	}
	a, err := n.queue.Active()
	if err != nil {
		return fmt.Errorf("read queue: %w", err)
	}
	var gone []queue.Item
	for _, u := range urls {
		var ids []string
		for _, it := range a.Items {
			if it.FromURL == u {
				ids = append(ids, it.ID)
				gone = append(gone, it)
			}
		}
		dropped, err := n.queue.Drop(ids...)
		if err != nil {
			return fmt.Errorf("drop the queue items of %s: %w", u, err)
		}
		if dropped > 0 {
			n.log.Warn("queue items of a forgotten peer dropped", "url", u, "count", dropped)
		}
	}
	// A trace the ledger already holds as another agent's (a copy the
	// forgotten peer's record gave way to) is not read again: it is
	// queued again from that agent now.
	return n.requeueDropped(gone)
}

// adoptRespelled moves the cursor, and what else the node keeps of the
// agent (moveAgent), that an agent of AGENTS.md has under an earlier
// spelling of its URL (before URLs had one canonical form: a default
// port, a host's trailing dot, an escaped letter) to the URL AGENTS.md
// now gives, so the agent keeps its place instead of being polled from
// scratch beside a cursor nothing reads. A learned peer's second spelling
// is forgotten instead (bind).
func (n *job) adoptRespelled() error {
	listed := map[string]bool{}
	for _, a := range n.snap.Agents {
		listed[a.URL] = true
	}
	for _, u := range n.state.SortedURLs() {
		canon, err := roster.NormalizeURL(u)
		if err != nil || canon == u || !listed[canon] || n.state.Cursors[u].LearnedFrom != "" {
			continue
		}
		if n.state.Rename(u, canon) {
			if err := n.moveAgent(u, canon); err != nil {
				return err
			}
			n.log.Info("cursor moved to the agent's URL as AGENTS.md spells it", "from", u, "to", canon)
		}
	}
	return nil
}

// adoptMoved moves the cursor, and what else the node keeps of the agent
// (moveAgent), of an agent of AGENTS.md whose URL a person changed (the
// agent moved) from its old URL to the new one, so that its files read
// again at the new URL are its own records, not copies of them, and its
// queue items wait there as they were (docs/decisions.md, "Names"). The
// old URL is the one cursor left by a person's edit under the agent's
// name: not learned by gossip, not listed in AGENTS.md, not our own; the
// new URL has no cursor yet.
func (n *job) adoptMoved(self string) error {
	listed := map[string]bool{self: true}
	for _, a := range n.snap.Agents {
		listed[a.URL] = true
	}
	olds := n.unlistedByName(listed)
	bound := map[string]bool{roster.Fold(n.cfg.Agent): true}
	for _, a := range n.snap.Agents {
		name := roster.Fold(a.Name)
		if bound[name] {
			continue // skipped by bind: the first line of a name wins
		}
		bound[name] = true
		from := olds[name]
		if len(from) != 1 || a.URL == self || n.state.Cursors[a.URL] != nil {
			continue
		}
		if n.state.Rename(from[0], a.URL) {
			if err := n.moveAgent(from[0], a.URL); err != nil {
				return err
			}
			n.log.Info("cursor moved to the agent's new URL in AGENTS.md", "peer", a.Name, "from", from[0], "to", a.URL)
		}
	}
	return nil
}

// moveAgent moves what the node keeps of the agent at from, whose cursor
// just moved to the URL to (State.Rename), in one mechanism: its ledger
// records, its queue items (IDs, claims and workers' results kept) and
// the pin of its signed log. Everything but the cursors is down before
// the cursors are saved, which the heartbeat does last: a run stopped
// anywhere before leaves the old cursor, and the next run moves again,
// moving nothing twice. The relays' listings do not move: they are what
// relays listed at the old URL, dropped as those of any URL no longer
// polled (readRelays; docs/decisions.md, "Names").
func (n *job) moveAgent(from, to string) error {
	n.led().Rename(from, to)
	if _, err := n.queue.Rename(from, to); err != nil {
		return err
	}
	if !n.pins.Rename(from, to) {
		return nil
	}
	// Saved now, not after the cursors as a poll's pins are: the moved
	// pin is no further on than the cursor that moves with it.
	changed, err := n.pins.Save()
	n.sum.Changed = n.sum.Changed || changed
	return err
}

// unlistedByName returns the URLs of the cursors neither learned by
// gossip nor in listed (an agent a person once listed), by the folded
// name they were polled under.
func (n *job) unlistedByName(listed map[string]bool) map[string][]string {
	out := map[string][]string{}
	for _, u := range n.state.SortedURLs() {
		c := n.state.Cursors[u]
		if listed[u] || c.LearnedFrom != "" || c.Agent == "" {
			continue
		}
		name := roster.Fold(c.Agent)
		out[name] = append(out[name], u)
	}
	return out
}

// bind gives a known agent its name, or says why it may not poll under
// it: a line of AGENTS.md whose name is taken is skipped; a learned peer
// whose name is taken, whose URL is not in canonical form, or whose URL is
// another scheme of a URL bound before it, or would share its state files
// with one (holdStateKey), is forgotten; so is a line of AGENTS.md
// skipped whose URL would share a URL's bound before it.
func (n *job) bind(k node.Known) (peer, bool) {
	if k.Listed {
		err := n.holdStateKey(k.URL)
		if err == nil {
			err = n.names.Bind(k.Name, k.URL)
		}
		if err != nil {
			n.log.Warn("AGENTS.md agent skipped", "peer", k.Name, "url", k.URL, "reason", err.Error())
			return peer{}, false
		}
		return n.peer(k.Name, k.URL), true
	}
	if canon, err := roster.NormalizeURL(k.URL); err != nil || canon != k.URL {
		// Learned before URLs had one form: a second name for a URL
		// (docs/security.md), read again under its canonical form if
		// it is gossiped again.
		n.forgetPeer(k.URL, k.Name, fmt.Errorf("%s is not in canonical form %q", k.URL, canon))
		return peer{}, false
	}
	if err := n.twinUnbound(k.URL); err != nil {
		// Learned before gossip refused a known URL's other scheme.
		n.forgetPeer(k.URL, k.Name, err)
		return peer{}, false
	}
	if err := n.holdStateKey(k.URL); err != nil {
		// Learned before gossip refused a URL sharing a known one's files.
		n.forgetPeer(k.URL, k.Name, err)
		return peer{}, false
	}
	if err := n.names.BindGossip(k.Name, k.URL); err != nil {
		n.forgetPeer(k.URL, k.Name, err)
		return peer{}, false
	}
	return n.peer(k.Name, k.URL), true
}

// peer is the agent name at url, to poll.
func (n *job) peer(name, url string) peer {
	return peer{name: name, url: url, public: !n.vouched(url)}
}

// peerAt is the peer whose trace URL is url, for a request outside its
// poll (a queued trace fetched again to score it).
func (n *job) peerAt(url string) peer {
	return n.peer("", url)
}

// vouched reports whether the owner vouched for url, so that it may
// resolve to a private address when allow_private_addresses is on: an
// agent of our AGENTS.md, or any peer when gossip.allow_private_addresses
// is on too. A peer learned by gossip otherwise gets public addresses
// only (docs/security.md), checked at connect time like every address.
func (n *job) vouched(url string) bool {
	if n.cfg.Gossip.AllowPrivateAddresses {
		return true
	}
	for _, a := range n.snap.Agents {
		if a.URL == url {
			return true
		}
	}
	return false
}

// forgetPeer drops a learned peer whose name is bound elsewhere, or whose
// URL is a second spelling of one, and what
// the ledger holds of it; the hashes of its files are no longer seen, so
// the agent the name belongs to is not refused the same bytes. The pin of
// its log goes once its cursor has (forgetPins).
func (n *job) forgetPeer(url, name string, why error) {
	delete(n.state.Cursors, url)
	hashes := n.led().Forget(url)
	n.state.ForgetSeen(hashes)
	n.log.Warn("learned peer forgotten", "peer", name, "url", url,
		"records", len(hashes), "reason", why.Error())
}

// byHostInTurn returns the order to start polling peers in: one peer of
// each host in turn, hosts in the order they first appear, each host's
// peers in their own order. AGENTS.md and the learned peers come grouped
// by host, and polled in that order the heartbeat's slots all queue on the
// first hosts' per-host caps while other hosts sit idle (a 1,000-peer
// mesh on 50 hosts took 63 s to fetch instead of 10 s). Results and logs
// keep the peers' own order.
func byHostInTurn(peers []peer) []int {
	var hosts []string
	byHost := map[string][]int{}
	for i, p := range peers {
		h := hostOf(p.url)
		if _, ok := byHost[h]; !ok {
			hosts = append(hosts, h)
		}
		byHost[h] = append(byHost[h], i)
	}
	out := make([]int, 0, len(peers))
	for round := 0; len(out) < len(peers); round++ {
		for _, h := range hosts {
			if round < len(byHost[h]) {
				out = append(out, byHost[h][round])
			}
		}
	}
	return out
}

// hostOf is the host (with port) of a peer's URL; the URL itself when it
// does not parse, so such a peer is a host of its own.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return strings.ToLower(u.Host)
}
