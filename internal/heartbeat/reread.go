package heartbeat

import (
	"slices"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// rereadMisread starts over each polled peer of which the ledger holds a
// record made under the older reading of rows, before node.KindOf: a
// trace whose file lies under disputes/ or validations/, or a validation
// read from a file outside validations/ (a validation trace, five of
// which once shared one key). What the ledger holds of the peer is
// forgotten, and its cursor reads every row again, fetching each file
// though it was seen, so this heartbeat records the peer as every node now does
// (docs/decisions.md, "What a row is"). Each record keeps its first-seen
// time. The cursor's polling history (breaker, presence, schedule) stays.
func (n *job) rereadMisread(peers []peer) error {
	if n.quiet != nil {
		// The derived record names the peers to read again, so their
		// records are only loaded when one of them is polled.
		if !slices.ContainsFunc(peers, func(p peer) bool { return slices.Contains(n.quiet.Misread, p.url) }) {
			return nil
		}
		if err := n.history("a peer to read again is polled"); err != nil {
			return err
		}
	}
	stale := n.misreadPeers()
	for _, p := range peers {
		c := n.state.Cursors[p.url]
		if c == nil || !stale[p.url] {
			continue
		}
		for _, t := range n.ledger.TracesBy(p.url) {
			if !t.FirstSeen.IsZero() {
				n.firstSeen[t.Hash] = t.FirstSeen
			}
		}
		hashes := n.ledger.Forget(p.url)
		n.rereading[p.url] = true
		c.LastSeenSeq, c.Gaps, c.Retry, c.Backlog = 0, nil, nil, true
		n.log.Info("peer read again: its records were made under an older reading of rows",
			"peer", p.name, "url", p.url, "records", len(hashes))
	}
	return nil
}

// misread returns the agent URLs of which the ledger holds a record
// that the older reading of rows made, in one pass over the ledger.
func misread(l *ledger.Ledger) map[string]bool {
	out := map[string]bool{}
	for _, t := range l.Traces {
		if t != nil && t.File != "" && node.KindOf(manifest.Entry{File: t.File}) != node.KindTrace {
			out[t.AgentURL] = true
		}
	}
	for _, v := range l.Validations {
		if v == nil || v.SourceURL == "" {
			continue
		}
		file, under := strings.CutPrefix(v.SourceURL, v.ValidatorURL)
		if !under || node.KindOf(manifest.Entry{File: file}) != node.KindValidation {
			out[v.ValidatorURL] = true
		}
	}
	return out
}

// firstSeenOf is when this node first recorded the file with hash h: kept
// across a re-read, else now.
func (n *job) firstSeenOf(h manifest.Hash) time.Time {
	if t, ok := n.firstSeen[h]; ok {
		return t
	}
	return n.now
}
