package check

import (
	"strings"

	"github.com/meshnode/meshnode/internal/trace"
)

// trace checks that a trace parses and has a title. Its content is for the
// validators of other nodes to judge.
func (c *checker) trace(f string, data []byte) {
	t, err := trace.Parse(data)
	if err != nil {
		c.add(f, 1, "not a trace: %v", err)
		return
	}
	if strings.TrimSpace(t.Title) == "" {
		c.add(f, 1, "the trace has no title: add `title:` to its front matter or a `# Title` line")
	}
}
