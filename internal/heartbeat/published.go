package heartbeat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// severalPublishers stands, in the index publishedByAnother reads, for
// bytes two or more agents publish as their validation or dispute: one
// of them is another than whichever agent asks. No URL is empty.
const severalPublishers = ""

// publishedByAnother reports whether an agent other than the one at url
// publishes the bytes of hash h as its validation or dispute, by the
// ledger's records of them: then a row of url listing them as a trace
// is not its trace (docs/protocol.md §6.4). The index it reads holds
// the hashes the polls bring as traces alone (n.brought, which apply
// sets): built from the ledger once a heartbeat, at the first trace a
// poll brings, by one pass over its validations and disputes, and kept
// up by notePublished (docs/decisions.md, "Copies"). A hash asked
// outside that set is taken in, and the index read again.
func (n *job) publishedByAnother(url string, h manifest.Hash) bool {
	if !n.brought[h] {
		if n.brought == nil {
			n.brought = map[manifest.Hash]bool{}
		}
		n.brought[h], n.published = true, nil
	}
	if n.published == nil {
		n.indexPublished()
	}
	by, ok := n.published[h]
	return ok && by != url
}

// indexPublished builds the index publishedByAnother reads from the
// ledger's validations and disputes of the hashes in n.brought.
func (n *job) indexPublished() {
	n.published = map[manifest.Hash]string{}
	for _, v := range n.ledger.Validations {
		if namesTraceHash(v) {
			n.notePublished(v.SourceHash, v.ValidatorURL)
		}
	}
	for _, d := range n.ledger.Disputes {
		if d != nil {
			n.notePublished(d.SourceHash, d.ReporterURL)
		}
	}
}

// tracesBrought returns the hashes of the files of kind trace the polls
// of results bring: the hashes publishedByAnother is asked of.
func tracesBrought(results []*pollResult) map[manifest.Hash]bool {
	brought := map[manifest.Hash]bool{}
	for _, r := range results {
		for _, f := range r.files {
			if f.kind == node.KindTrace {
				brought[f.entry.Hash] = true
			}
		}
	}
	return brought
}

// namesTraceHash reports whether v is the record of a validation file
// that names the hash of the trace it judges: only such a file is a
// validation and nothing else. A file that does not parse is recorded
// as a validation that counts for nothing, and a trace of type
// validation parses as one (validation.Parse): either may be the bytes
// of some agent's trace, listed under validations/ by another to hide it.
func namesTraceHash(v *ledger.Validation) bool {
	return v != nil && v.TraceHash != ""
}

// notePublished adds to the index publishedByAnother reads that the
// agent at url publishes the file of hash h as its validation or
// dispute, once the index is built, when h is a hash the polls bring as
// a trace: another is asked only after the index is read again.
func (n *job) notePublished(h manifest.Hash, url string) {
	if n.published == nil || h == "" || url == "" || !n.brought[h] {
		return
	}
	if by, ok := n.published[h]; ok && by != url {
		url = severalPublishers
	}
	n.published[h] = url
}

// undoTraceListings drops the ledger's records of the bytes of hash h,
// which peer p publishes as its validation or dispute, as other agents'
// trace (ledger.DropTraceListings): read before p's file, they were
// taken for a trace. Their queue items go too (unqueueNotTraces).
func (n *job) undoTraceListings(p peer, h manifest.Hash) {
	gone := n.ledger.DropTraceListings(h, p.url)
	if len(gone) == 0 {
		return
	}
	n.log.Warn("not a trace: another agent's listing of a validation or dispute as its trace dropped", "peer", p.name, "url", p.url,
		"sha256", h, "of", strings.Join(gone, " "))
	if n.notTraces == nil {
		n.notTraces = map[manifest.Hash]bool{}
	}
	n.notTraces[h] = true
}

// unqueueNotTraces leaves out of toQueue, and drops from the queue where
// they wait (not settled), the items of the hashes undoTraceListings
// found to be no trace, and returns what is left of toQueue. A validation
// the node published of one already stays.
func (n *job) unqueueNotTraces(toQueue []queue.Item) ([]queue.Item, error) {
	if len(n.notTraces) == 0 {
		return toQueue, nil
	}
	toQueue = slices.DeleteFunc(toQueue, func(it queue.Item) bool { return n.notTraces[it.Hash] })
	a, err := n.queue.Active()
	if err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	var ids []string
	for _, it := range a.Items {
		if n.notTraces[it.Hash] {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) == 0 {
		return toQueue, nil
	}
	if _, err := n.queue.Drop(ids...); err != nil {
		return nil, fmt.Errorf("drop queue items: %w", err)
	}
	return toQueue, nil
}
