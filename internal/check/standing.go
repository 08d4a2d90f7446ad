package check

import (
	"errors"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// standing reports, on each validation checked, that the node may not
// validate yet: its validations would count for nothing. It is the rule
// the heartbeat applies (signal.ProgressOf over the same public files),
// so a pull request is held to the same standing as the heartbeat.
func (c *checker) standing() {
	if len(c.vals) == 0 || c.base == nil {
		return // nothing to judge, or the base did not open: a problem already
	}
	in, err := signal.FromSnapshot(c.base, c.o.Agent, c.o.URL)
	var fe *signal.FoundersError
	switch {
	case errors.As(err, &fe):
		for _, p := range fe.Problems {
			c.add(node.FoundersFile, p.Line, "%s", p.Reason)
		}
		return
	case err != nil && err == c.base.ManifestErr:
		return // already a problem of MANIFEST.md
	case err != nil:
		c.add(node.FoundersFile, 1, "%v", err)
		return
	}
	p := signal.ProgressOf(signal.Compute(in), c.o.URL)
	if p.HasStanding() {
		return
	}
	for _, f := range c.vals {
		c.add(f, 1, "%s; %s", p.Reason(), p.Next())
	}
}
