package heartbeat

import (
	"fmt"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

// signalReport computes SIGNAL from the node's snapshot, with what this run
// added to it: the same public files give every node the same report,
// whatever its mesh.yaml says.
func (n *job) signalReport() (signal.Report, error) {
	in, err := signal.FromSnapshot(n.snap, n.cfg.Agent, n.cfg.URL)
	if err != nil {
		return signal.Report{}, fmt.Errorf("compute SIGNAL: %w", err)
	}
	return signal.Compute(in), nil
}

// ownStatuses resolves the status of each of our own traces from the
// validations the node has seen (SIGNAL's resolution rule). Under a rule
// set this node does not implement it resolves none: every trace stays
// pending rather than carry a status the mesh's rules may not give it.
func (n *job) ownStatuses() (map[manifest.Hash]manifest.Status, error) {
	r, err := n.signalReport()
	if unknownRules(err) != nil {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return signal.Own(r, n.cfg.URL), nil
}

// standing says whether the node may validate: whether its validations
// count, by the rule every node applies to the same public files
// (docs/decisions.md, Standing). The summary says where the node stands
// and, without standing, what to do next.
func (n *job) standing() (bool, error) {
	r, err := n.signalReport()
	if ue := unknownRules(err); ue != nil {
		n.sum.Standing, n.sum.StandingNext = "no standing: "+ue.Error(), "upgrade meshnode to a version that implements the mesh's rule set"
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p := signal.ProgressOf(r, n.cfg.URL)
	n.sum.Standing, n.sum.StandingNext = p.Reason(), p.Next()
	return p.HasStanding(), nil
}
