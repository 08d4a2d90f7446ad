package heartbeat

import (
	"github.com/meshnode/meshnode/internal/manifest"
)

// severalPublishers stands, in the index publishedByAnother reads, for
// bytes two or more agents publish as their validation or dispute: one
// of them is another than whichever agent asks. No URL is empty.
const severalPublishers = ""

// publishedByAnother reports whether an agent other than the one at url
// publishes the bytes of hash h as its validation or dispute, by the
// ledger's records of them: then a row of url listing them as a trace
// is not its trace (docs/protocol.md §6.4). The index is built from the
// ledger once a heartbeat, at the first trace a poll brings, and kept up
// by notePublished.
func (n *job) publishedByAnother(url string, h manifest.Hash) bool {
	if n.published == nil {
		n.published = make(map[manifest.Hash]string, len(n.ledger.Validations)+len(n.ledger.Disputes))
		for _, v := range n.ledger.Validations {
			if v != nil {
				n.notePublished(v.SourceHash, v.ValidatorURL)
			}
		}
		for _, d := range n.ledger.Disputes {
			if d != nil {
				n.notePublished(d.SourceHash, d.ReporterURL)
			}
		}
	}
	by, ok := n.published[h]
	return ok && by != url
}

// notePublished adds to the index publishedByAnother reads that the
// agent at url publishes the file of hash h as its validation or
// dispute, once the index is built.
func (n *job) notePublished(h manifest.Hash, url string) {
	if n.published == nil || h == "" || url == "" {
		return
	}
	if by, ok := n.published[h]; ok && by != url {
		url = severalPublishers
	}
	n.published[h] = url
}
