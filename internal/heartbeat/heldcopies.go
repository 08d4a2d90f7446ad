package heartbeat

import (
	"sync"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/manifest"
)

// heldCopies holds the copies taken from the traces this heartbeat's polls
// fetched, only those internal/copies' bounds may keep: each poll offers
// its own when it ends (copies.Selection), and the copies let go of are
// dropped at once. A catch-up of 20,000 traces held all 20,000 (65 MB)
// until the apply kept 3,000 of them. The apply then keeps the copy of
// each trace it records, and fetches again the few the selection let go
// of that the copies' bounds select after all, among the history's
// traces and what the apply took down (backfillCopies): the copies kept
// are those the apply kept when it held them all. It is shared by the
// poll goroutines.
type heldCopies struct {
	mu  sync.Mutex
	sel *copies.Selection
	// held is each copy offered, by the file it was taken from; nil once
	// the selection let go of it.
	held map[copyKey]*copies.Copy
}

// copyKey is one file of one peer.
type copyKey struct {
	agentURL string
	seq      manifest.Seq
	hash     manifest.Hash
}

func newHeldCopies() *heldCopies {
	return &heldCopies{sel: copies.NewSelection(copies.PerAgent, copies.MaxCopies), held: map[copyKey]*copies.Copy{}}
}

// offer takes the copies of files, the files a poll of the peer at
// agentURL fetched, into h, and drops those the selection lets go of, of
// these files or of those offered before. Each file's copy leaves it.
func (h *heldCopies) offer(agentURL string, files []fetched) {
	var cands []copies.Candidate
	taken := map[copyKey]*copies.Copy{}
	for i := range files {
		f := &files[i]
		if f.copy == nil {
			continue
		}
		c := copies.Candidate{Hash: f.entry.Hash, AgentURL: agentURL, Seq: f.entry.Seq, Submitted: f.entry.Submitted}
		cands = append(cands, c)
		taken[keyOf(c)] = f.copy
		f.copy = nil
	}
	if len(cands) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, c := range taken {
		h.held[k] = c
	}
	for _, c := range h.sel.Offer(cands) {
		h.held[keyOf(c)] = nil
	}
}

// take returns the copy held of the file e of the peer at agentURL, and
// whether it was offered at all (a nil copy then: let go of).
func (h *heldCopies) take(agentURL string, e manifest.Entry) (*copies.Copy, bool) {
	if h == nil {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	k := copyKey{agentURL: agentURL, seq: e.Seq, hash: e.Hash}
	c, ok := h.held[k]
	delete(h.held, k)
	return c, ok
}

func keyOf(c copies.Candidate) copyKey {
	return copyKey{agentURL: c.AgentURL, seq: c.Seq, hash: c.Hash}
}
