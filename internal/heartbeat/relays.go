package heartbeat

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/statefile"
)

// relays is what one heartbeat holds of the relays it reads
// (docs/decisions.md, "Relays").
type relays struct {
	store *relay.Store
	view  *relay.View
	// reader read them, and keeps the checkpoints they listed anew.
	reader   *relay.Reader
	problems map[string]string // this heartbeat's failures to read a relay, by URL
	skipped  atomic.Int64      // peers a relay let wait
}

// readRelays reads what each configured relay added since the last
// heartbeat about peers, before the polls it makes due or lets wait. A
// relay that cannot be read now vouches with what it said before. What
// the relays listed of URLs not among peers is dropped: the node keeps
// of a relay only what it says of the agents polled.
func (n *job) readRelays(ctx context.Context, peers []peer) error {
	path := filepath.Join(n.opts.Dir, node.RelaysFile)
	if err := atomicfile.RemoveTemps(statefile.Dir(path)); err != nil {
		return err
	}
	store, err := relay.LoadStore(path)
	if err != nil {
		return err
	}
	list := n.cfg.Relays.Each()
	rs := make([]relay.Relay, len(list))
	for i, r := range list {
		rs[i] = relay.Relay{URL: r.URL, Key: r.Key}
	}
	store.Keep(rs)
	n.relays = &relays{store: store, problems: map[string]string{}}
	known := make(map[string]bool, len(peers))
	for _, p := range peers {
		known[p.url] = true
	}
	if gone := store.KeepAgents(func(u string) bool { return known[u] }); gone > 0 {
		n.log.Info("relays' listings of agents no longer polled dropped", "count", gone)
	}
	rd := &relay.Reader{Client: n.client, Pins: n.pins, Now: n.now, Known: func(u string) bool { return known[u] }}
	for _, r := range rs {
		if _, err := rd.Read(ctx, r, store.Held(r)); err != nil {
			n.relays.problems[r.URL] = err.Error()
			n.log.Warn("relay not read", "url", r.URL, "err", err)
		}
	}
	cursor := func(url string) *state.Cursor { return n.state.Cursors[url] }
	n.relays.view = relay.NewView(store.All(), n.pins, cursor, n.cfg.Relays.DirectPoll, n.now)
	n.relays.reader = rd
	return nil
}

// due reports whether p is polled now: as the relays say when some are
// read, else by its own schedule.
func (r *relays) due(p peer, c *state.Cursor, now time.Time) bool {
	if r == nil {
		return c.Due(now)
	}
	d := r.view.Due(p.url, c, now)
	if !d && c.Due(now) {
		r.skipped.Add(1)
	}
	return d
}

// settleRelays judges, after the polls, the relayed checkpoints the
// pinned keys did not verify, and puts the relays in the summary.
func (n *job) settleRelays() {
	if n.relays == nil {
		return
	}
	held := n.relays.store.All()
	relay.Settle(held, n.pins, n.now)
	for _, h := range held {
		s := n.relays.view.StatusOf(h)
		if h.Fault != nil {
			n.log.Warn("relay faulted: not read until an operator acts", "url", h.URL, "fault", h.Fault.Kind, "detail", h.Fault.Detail)
		}
		n.sum.Relays = append(n.sum.Relays, report.Relay{URL: s.URL, State: s.State, Size: s.Size, Read: s.Read,
			Agents: s.Agents, Fault: s.Fault, Problem: n.relays.problems[h.URL]})
	}
	n.sum.RelaySkipped = int(n.relays.skipped.Load())
}

// saveRelays writes the relays' state, and reports whether a file
// changed.
func (n *job) saveRelays() (bool, error) {
	if n.relays == nil {
		return false, nil
	}
	return n.relays.store.Save()
}
