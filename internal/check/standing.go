package check

import (
	"strings"

	"github.com/meshnode/meshnode/internal/validation"
)

// standing reports, on each validation checked, that the node may not
// validate yet: seed 000, step 6, lets a node validate only once enough of
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

// validatedOwn counts our published traces that others validated: more
// passing than failing validations by validators other than us, as the
// ledger recorded them.
func (c *checker) validatedOwn() int {
	votes := map[string]int{}
	for _, v := range c.ledger.Validations {
		if strings.EqualFold(v.Validator, c.o.Agent) || trimSlash(v.ValidatorURL) == trimSlash(c.o.URL) {
			continue
		}
		if v.Result == validation.ResultPass {
			votes[v.TraceHash]++
		} else {
			votes[v.TraceHash]--
		}
	}
	n := 0
	for _, h := range c.ownTraces {
		if votes[h] > 0 {
			n++
		}
	}
	return n
}
