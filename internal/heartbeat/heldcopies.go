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
// these files or of those offered before; a file whose copy was not taken
// (mayKeep) is let go of too. Each file's copy leaves it.
func (h *heldCopies) offer(agentURL string, files []fetched) {
	var cands []copies.Candidate
	taken := map[copyKey]*copies.Copy{}
	for i := range files {
		f := &files[i]
		if f.copy == nil && !f.copyLetGo {
			continue
		}
		c := candidateOfFile(agentURL, f.entry)
		taken[keyOf(c)] = f.copy
		if f.copy != nil {
			cands = append(cands, c)
		}
		f.copy = nil
	}
	if len(taken) == 0 {
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

// mayKeep reports whether the copy of the file e of the peer at agentURL,
// fetched now, could be kept when its poll offers it: making one the
// selection is sure to let go of would only cost its CPU and garbage
// (most of a catch-up's 20,000). A nil h may keep every copy.
func (h *heldCopies) mayKeep(agentURL string, e manifest.Entry) bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sel.MayKeep(candidateOfFile(agentURL, e))
}

// candidateOfFile is the file e of the peer at agentURL as copies.Select
// weighs the trace the apply records from it (candidateOf).
func candidateOfFile(agentURL string, e manifest.Entry) copies.Candidate {
	return copies.Candidate{Hash: e.Hash, AgentURL: agentURL, Seq: e.Seq, Submitted: e.Submitted}
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
