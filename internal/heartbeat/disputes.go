package heartbeat

import (
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
)

// recordDispute records a peer's dispute file in the ledger under the
// name and URL the peer is polled by (the reporter a file names is only
// a claim), as docs/protocol.md §7.4 describes it. A file that does not
// parse, or that disputes nothing (dispute.Check), is passed over with a
// warning. A peer keeps at most maxDisputesPerPeer disputes in the
// ledger, the bound on what we publish about one peer applied to what we
// keep of one: past it a dispute is passed over, not carried (its hash
// is seen), and counted in heldDisputes for the summary. Whether a
// recorded dispute takes its trace's text down is takeDownDisputed's.
func (n *job) recordDispute(p peer, f fetched) {
	if f.disp == nil {
		return // unreadable: the poll logged why
	}
	if problems := f.disp.Check(); len(problems) > 0 {
		n.log.Warn("dispute not recorded", "peer", p.name, "url", f.url, "seq", f.entry.Seq, "reason", strings.Join(problems, "; "))
		return
	}
	d := ledger.DisputeOf(f.disp)
	d.Reporter, d.ReporterURL, d.SourceURL, d.SourceHash = p.name, p.url, f.url, f.entry.Hash
	if n.ledger.Disputes[d.Key()] == nil {
		if n.disputesBy(p.url) >= maxDisputesPerPeer {
			n.heldDisputes++
			return
		}
		n.peerDisputes[p.url]++
	}
	n.ledger.AddDispute(&d)
	n.notePublished(f.entry.Hash, p.url)
	n.undoTraceListings(p, f.entry.Hash)
}

// disputesBy counts the disputes by the peer at url the ledger holds,
// from the ledger once per peer a heartbeat, then as they are added.
func (n *job) disputesBy(url string) int {
	if n.peerDisputes == nil {
		n.peerDisputes = map[string]int{}
	}
	if _, ok := n.peerDisputes[url]; !ok {
		n.peerDisputes[url] = n.ledger.DisputesBy(url)
	}
	return n.peerDisputes[url]
}
