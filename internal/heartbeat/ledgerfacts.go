package heartbeat

import (
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// ledgerAt says which state of the ledger a fact was computed from: the
// ledger (another once the history is loaded) and its count of edits,
// which every change of a record goes through (ledger.Ledger.Edits).
type ledgerAt struct {
	ledger *ledger.Ledger
	edits  int
}

// ledgerNow is the state of the ledger now.
func (n *job) ledgerNow() ledgerAt {
	return ledgerAt{ledger: n.ledger, edits: n.ledger.Edits()}
}

// ledgerFact is a value computed from the ledger alone, kept with the
// state it was computed from: a heartbeat with news reads the peers to
// read again (misread) twice and the copies' selection three times, each
// a pass over every record of the history, and computes them once for
// each state of the ledger it reads them in.
type ledgerFact[T any] struct {
	at    ledgerAt
	value T
	ok    bool
}

// get returns the value kept when it was computed from the ledger as it
// is now, else computes it and keeps it. Callers must not change it.
func (f *ledgerFact[T]) get(now ledgerAt, compute func() T) T {
	if f.ok && f.at == now {
		return f.value
	}
	f.at, f.value, f.ok = now, compute(), true
	return f.value
}

// misreadPeers is misread of the ledger as it is now.
func (n *job) misreadPeers() map[string]bool {
	return n.stale.get(n.ledgerNow(), func() map[string]bool {
		if computingMisread != nil {
			computingMisread()
		}
		return misread(n.ledger)
	})
}

// copiesKept is selectCopies of the ledger as it is now.
func (n *job) copiesKept() map[manifest.Hash]bool {
	return n.kept.get(n.ledgerNow(), func() map[manifest.Hash]bool {
		if selectingCopies != nil {
			selectingCopies()
		}
		return n.selectCopies()
	})
}

// computingMisread and selectingCopies, when set (tests only), are told
// each time a heartbeat computes misread and selectCopies.
var computingMisread, selectingCopies func()
