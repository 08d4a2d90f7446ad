package heartbeat

import (
	"errors"
	"sync"

	"github.com/meshnode/meshnode/internal/manifest"
)

// What all peers together may cost in one heartbeat (docs/security.md,
// "Every limit and why"): the per-peer budgets of budget.go times the peers a
// node may poll (500, gossip adding up to 100 from one peer) would be
// gigabytes of memory and ledger. The polls share these first come, first
// served; a poll that finds one spent is cut like one that spent its own,
// and its remainder is read in a later heartbeat.
const (
	// maxHeldBytes bounds the bytes of peers' files in memory at once:
	// those being fetched, each counted at what it has read so far (or,
	// fetched for the entry its poll waits on, at limits.trace_bytes, at
	// most heldReserveCap) until the poll takes or drops it, and those
	// kept for scoring (at most maxKeptBytes). Eight peers each at
	// maxBytesPerPoll took 703 MB of RSS without it. Each fetch once
	// reserved limits.trace_bytes before asking, which let only 64 of
	// them run at once: the 1,000-peer catch-up polled at a third of the
	// rate its hosts' connections allowed.
	maxHeldBytes = 64 << 20
	// heldReserveCap bounds what one fetch reserves of maxHeldBytes before
	// its body is read, so a large limits.trace_bytes still lets eight
	// fetches run at once.
	heldReserveCap = maxHeldBytes / 8
	// maxKeptBytes bounds the bodies kept from polling to scoring: a
	// taken file's bytes are handed on, and kept only when its trace may
	// be scored this heartbeat and they fit; scoring fetches the others
	// again. The real mesh's 859 traces take 4 MB. Files once stayed in
	// memory until the heartbeat ended, so 20,000 traces of 3 kB filled
	// maxHeldBytes and fetches waited for room: the 1,000-peer catch-up
	// ran at a fifth of its request rate.
	maxKeptBytes = maxHeldBytes / 4
	// maxKeptFiles bounds the files kept for scoring: a heartbeat
	// publishes at most maxValidationsPerHeartbeat validations, so it
	// scores no more traces than that. The 1,000-peer catch-up kept the
	// bodies of 4,800 of its 20,000 traces (maxKeptBytes), of which it
	// scored about 240, and held them through its queue's writes.
	maxKeptFiles = maxValidationsPerHeartbeat
	// maxEntriesPerHeartbeat bounds the ledger entries all polls add: at
	// about 550 bytes an entry, 11 MB of ledger a heartbeat.
	maxEntriesPerHeartbeat = 20_000
	// maxUnverifiedPerHeartbeat bounds the rows without a file column all
	// polls record: a hundred sybil peers at maxUnverifiedPerPoll would
	// add 20 MB of ledger a heartbeat.
	maxUnverifiedPerHeartbeat = 2_000
	// maxDisputesPerHeartbeat bounds the hash mismatches, each a dispute
	// file and MANIFEST.md row we publish, that all polls record.
	maxDisputesPerHeartbeat = 50
)

// nodeBudget is what all polls of one heartbeat have spent, and the
// bytes held for them. Its zero value is ready to use; it is shared by the
// poll goroutines and scoring.
type nodeBudget struct {
	mu                            sync.Mutex
	cond                          *sync.Cond // signalled when bytes are released
	reserved                      int64      // bytes reserved by fetches not yet taken or dropped
	kept                          int64      // bytes of taken files kept for scoring
	keptFiles                     int        // those files
	peak                          int64      // the most of reserved + kept at once
	entries, unverified, disputes int
}

// reserve reserves n bytes of maxHeldBytes for one fetch, or reports false
// when they do not fit. With wait, it waits while other fetches' bytes
// may still be released, and reports false only when the bytes kept for
// scoring leave no room. A poll waits only while it holds no reservation,
// so no two polls wait for each other.
func (nb *nodeBudget) reserve(n int64, wait bool) bool {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	for nb.kept+nb.reserved+n > maxHeldBytes {
		if !wait || nb.reserved == 0 {
			return false
		}
		if nb.cond == nil {
			nb.cond = sync.NewCond(&nb.mu)
		}
		nb.cond.Wait()
	}
	nb.reserved += n
	nb.peak = max(nb.peak, nb.kept+nb.reserved)
	return true
}

// release gives back n reserved bytes, of a fetch whose bytes were not
// kept.
func (nb *nodeBudget) release(n int64) {
	if n == 0 {
		return
	}
	nb.mu.Lock()
	defer nb.mu.Unlock()
	nb.reserved -= n
	nb.broadcast()
}

// keep hands a taken file on: it gives back the fetch's reservation of n
// bytes and, when want and they fit in maxKeptBytes and maxKeptFiles,
// keeps the file's size bytes for scoring and reports true. Otherwise the
// file's bytes are to be dropped, and scoring fetches them again.
func (nb *nodeBudget) keep(n, size int64, want bool) bool {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	defer nb.broadcast()
	nb.reserved -= n
	if !want || nb.kept+size > maxKeptBytes || nb.keptFiles >= maxKeptFiles {
		return false
	}
	nb.kept += size
	nb.keptFiles++
	nb.peak = max(nb.peak, nb.kept+nb.reserved)
	return true
}

// handedOn gives back a file of size bytes kept for scoring, once scoring
// has it or the heartbeat lets it go unscored.
func (nb *nodeBudget) handedOn(size int64) {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	nb.kept -= size
	nb.keptFiles--
	nb.broadcast()
}

// inUse is the bytes reserved and kept now, and the most at once.
func (nb *nodeBudget) inUse() (now, peak int64) {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	return nb.reserved + nb.kept, nb.peak
}

// bodyHold is what one fetch holds of maxHeldBytes: reserved up front,
// or grown as its body is read (fetch.Request.Hold).
type bodyHold struct {
	node *nodeBudget
	held int64
}

// errNoRoom refuses a body's bytes when maxHeldBytes has no room for them.
var errNoRoom = errors.New("the heartbeat holds as many bytes of peers' files as it may")

// grow holds read bytes in all, taking what is missing from the node's
// budget without waiting, or refuses with errNoRoom.
func (h *bodyHold) grow(read int64) error {
	if read <= h.held {
		return nil
	}
	if !h.node.reserve(read-h.held, false) {
		return errNoRoom
	}
	h.held = read
	return nil
}

func (nb *nodeBudget) broadcast() {
	if nb.cond != nil {
		nb.cond.Broadcast()
	}
}

// spent reports whether no further entry can be taken by any poll.
func (nb *nodeBudget) spent() bool {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	return nb.entries >= maxEntriesPerHeartbeat
}

// take spends what entry e with result res costs of the heartbeat's
// budget, or reports false, and spends nothing, when it does not fit. A
// file's reservation stays until the poll hands the file on.
func (nb *nodeBudget) take(e manifest.Entry, res *entryResult) bool {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	if nb.entries >= maxEntriesPerHeartbeat {
		return false
	}
	switch {
	case e.File == "":
		if nb.unverified >= maxUnverifiedPerHeartbeat {
			return false
		}
		nb.unverified++
	case res.mismatch != nil:
		if nb.disputes >= maxDisputesPerHeartbeat {
			return false
		}
		nb.disputes++
	}
	nb.entries++
	return true
}
