package setup

import (
	"fmt"
	"regexp"
)

// maxAgentName bounds an agent name. Real names are short (the corpus's
// longest is "test-join-probe"); the bound keeps a pasted sentence out of
// AGENTS.md lines and file names.
const maxAgentName = 64

// agentName is what an agent name may hold: it appears as a column of the
// pipe-separated AGENTS.md and in "agent/seq" citations, so no spaces,
// pipes, slashes or a leading "#" (a comment in AGENTS.md).
var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidateAgent reports why name cannot be an agent name, or nil.
func ValidateAgent(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("agent name is empty")
	case len(name) > maxAgentName:
		return fmt.Errorf("agent name %q is longer than %d characters", name, maxAgentName)
	case !agentName.MatchString(name):
		return fmt.Errorf("agent name %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'", name)
	}
	return nil
}
