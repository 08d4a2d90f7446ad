package site

import (
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/presence"
)

// loadPeers lists the agents the node knows (node.Snapshot.Known: the
// ones the heartbeat polls) with their cursors, each peer's presence at
// now, how its log reads (its pin under mesh-state/log-pins/) and what
// the ledger holds of it.
func loadPeers(n *Node, snap *node.Snapshot, now time.Time) error {
	if snap.AgentsErr != nil {
		return snap.AgentsErr
	}
	pins, err := logpin.Load(filepath.Join(n.Dir, node.LogPinsFile))
	if err != nil {
		return fmt.Errorf("read the log pins: %w", err)
	}
	l, st := snap.Ledger, snap.Cursors
	byURL := map[string]*Peer{}
	for _, k := range snap.Known(n.URL) {
		p := &Peer{Name: k.Name, URL: k.URL}
		byURL[k.URL] = p
		logStateOf(p, pins.Get(k.URL))
		c := st.Cursors[k.URL]
		if c == nil {
			continue
		}
		p.LastSeenSeq, p.Failures, p.LastError = c.LastSeenSeq, c.FailureCount, c.LastError
		p.LastPolled, p.LastSuccess, p.LearnedFrom = c.LastPolled.UTC(), c.LastSuccess.UTC(), c.LearnedFrom
		p.Pages = c.Pages
	}
	traces, votes := ledgerCounts(l)
	for _, p := range byURL {
		j := presence.Of(st.Cursors[p.URL], now)
		p.Presence, p.PresenceWords = string(j.Presence), j.Words()
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

// logStateOf sets how p's log reads from its pin (nil when it has none):
// nothing for a peer read from MANIFEST.md, the node's usual way, which
// keeps its page calm.
func logStateOf(p *Peer, pin *logpin.Pin) {
	if s := logpin.State(pin); s != logpin.StateManifest {
		p.Log = s
	}
	if pin != nil && pin.Alarm != nil {
		p.LogAlarm = pin.Alarm.Kind
	}
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
	for _, t := range l.Copies {
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
