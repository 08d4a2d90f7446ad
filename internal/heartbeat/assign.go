package heartbeat

import (
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/signal"
)

// assigned keeps of toQueue the traces this node is to judge: under a rule
// set that assigns traces (mesh-2026-4, mesh-2026-5), those whose jury, drawn from the
// files the node holds now, names it; under the others, all of them
// (docs/decisions.md, Assignment). The rest stay recorded in the ledger,
// counted in the summary. When SIGNAL's input cannot be read (a FOUNDERS.md
// that does not parse, a rule set this node does not implement) every
// trace is queued as before, and waits: the standing step says why.
func (n *job) assigned(toQueue []queue.Item) []queue.Item {
	if len(toQueue) == 0 {
		return toQueue
	}
	in, err := signal.FromSnapshot(n.snap, n.cfg.Agent, n.cfg.URL)
	if err != nil {
		return toQueue
	}
	as, ok := n.assignmentPools().Assignments(in)
	if !ok {
		return toQueue
	}
	var kept []queue.Item
	for _, it := range toQueue {
		if t := n.ledger.Traces[it.Hash]; t != nil && as.AssignedTo(*t, n.cfg.URL) {
			kept = append(kept, it)
			continue
		}
		n.sum.Unassigned++
	}
	return kept
}
