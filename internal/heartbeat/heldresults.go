package heartbeat

import (
	"cmp"
	"slices"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
)

// heldResult names a worker's stored result that publishResults held back
// because its own peer withdrew its trace: the item, its trace, its peer
// and its version. Any change to the item (a person's decision, its
// publication, a Rename's new peer URL) gives another heldResult.
type heldResult struct {
	ID      string        `json:"id"`
	Hash    manifest.Hash `json:"hash"`
	FromURL string        `json:"from_url"`
	Version int           `json:"version"`
}

// heldResultOf is the heldResult of it as it stands.
func heldResultOf(it queue.Item) heldResult {
	return heldResult{ID: it.ID, Hash: it.Hash, FromURL: it.FromURL, Version: it.Version}
}

// holdResult records that publishResults held it back for its withdrawn
// trace, for the derived record (saveDerived).
func (n *job) holdResult(it queue.Item) {
	n.logHeldResult(it)
	n.heldResults = append(n.heldResults, heldResultOf(it))
}

// stillHeld reports whether a heartbeat that uses its derived record may
// leave every result of todo unpublished without loading the history:
// each is one the heartbeat that computed the record held back for its
// withdrawn trace, unchanged since. Whether a trace is withdrawn changes
// only with its peer's listing, which only news brings, and news loads
// the history: without it, each would be held again. A result the record
// does not name (stored since, or held for another reason, such as the
// publishing budget, that time alone may lift) loads the history, and is
// published at this heartbeat.
func (n *job) stillHeld(todo []queue.Item) bool {
	if n.quiet == nil {
		return false
	}
	for _, it := range todo {
		if !slices.Contains(n.quiet.HeldResults, heldResultOf(it)) {
			return false
		}
	}
	for _, it := range todo {
		n.logHeldResult(it)
	}
	return true
}

// logHeldResult says that it waits for its trace to be listed again.
func (n *job) logHeldResult(it queue.Item) {
	n.log.Info("stored result waits: its peer withdrew the trace", "peer", it.From, "url", it.FromURL, "sha256", it.Hash)
}

// sortedHeldResults returns the held results in ID order, so the derived
// record's bytes do not depend on the queue's order.
func sortedHeldResults(hs []heldResult) []heldResult {
	out := slices.Clone(hs)
	slices.SortFunc(out, func(a, b heldResult) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.FromURL, b.FromURL))
	})
	return out
}
