package check

import "github.com/meshnode/meshnode/internal/signal"

// standing reports, on each validation checked, that the node may not
// validate yet: docs/protocol.md §8.4, lets a node validate only once enough of
// its own traces were validated by others.
func (c *checker) standing() {
	if len(c.vals) == 0 || c.o.MinValidated <= 0 || c.o.Bootstrap {
		return
	}
	got := c.validatedOwn()
	if got >= c.o.MinValidated {
		return
	}
	for _, f := range c.vals {
		c.add(f, 1, "no standing yet: %d of %d own traces validated by others (standing.min_validated_traces in mesh.yaml)", got, c.o.MinValidated)
	}
}

// validatedOwn counts our published traces the mesh resolved as
// validated, by the rule the heartbeat's gate uses (signal.OwnValidated),
// so a pull request is held to the same standing as the heartbeat.
func (c *checker) validatedOwn() int {
	in, err := signal.Load(c.o.Dir, c.o.Agent, c.o.URL, c.o.SignalBootstrap)
	if err != nil {
		c.add(LedgerFile, 1, "cannot compute standing: %v", err)
		return 0
	}
	return signal.OwnValidated(signal.Compute(in), c.o.URL)
}
