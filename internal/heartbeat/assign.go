package heartbeat

import (
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/queue"
)

// assigned keeps of toQueue the traces this node is to judge: under a rule
// set that assigns traces (mesh-2026-4 and later), those whose jury, drawn from the
// files the node holds now, names it; under the others, all of them
// (docs/decisions.md, Assignment). The rest stay recorded in the ledger,
// counted in the summary. When SIGNAL's input cannot be read (a FOUNDERS.md
// that does not parse, a rule set this node does not implement) every
// trace is queued as before, and waits: the standing step says why.
//
// A node away under mesh-2026-5 (signal.Assignments.Away) also keeps one
// trace not assigned to it (presence): juries pass over the away, so
// without it a node whose assignments all failed would never be drawn, and
// so never validate, again. Its validation earns nothing and settles
// nothing (an unassigned vote), but it is a validation, which makes the
// node present from the next epoch on (docs/protocol.md §8.8, 5).
func (n *job) assigned(toQueue []queue.Item) []queue.Item {
	if len(toQueue) == 0 {
		return toQueue
	}
	in, err := n.signalInput()
	if err != nil {
		return toQueue
	}
	as, ok := n.assignmentPools().Assignments(in)
	if !ok {
		return toQueue
	}
	var kept, others []queue.Item
	for _, it := range toQueue {
		if t := n.ledger.Traces[it.Hash]; t != nil && as.AssignedTo(t, n.cfg.URL) {
			kept = append(kept, it)
			continue
		}
		others = append(others, it)
	}
	if as.Away(n.cfg.URL) {
		n.sum.Away = true
		if p, ok := returnTrace(others); ok {
			kept = append(kept, p)
			n.sum.Presence = string(p.Hash)
			others = slices.DeleteFunc(others, func(it queue.Item) bool { return it.Hash == p.Hash })
		}
	}
	n.sum.Unassigned += len(others)
	return kept
}

// returnTrace is the trace an away node scores to be drawn again: of items,
// the newest submitted, equal times by hash (the smallest), so that a rerun
// over the same files keeps the same one; ok is false when items is empty.
func returnTrace(items []queue.Item) (queue.Item, bool) {
	if len(items) == 0 {
		return queue.Item{}, false
	}
	return slices.MinFunc(items, func(x, y queue.Item) int {
		if c := y.Submitted.Compare(x.Submitted); c != 0 {
			return c
		}
		return strings.Compare(string(x.Hash), string(y.Hash))
	}), true
}
