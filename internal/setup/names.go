package setup

import (
	"fmt"

	"github.com/meshnode/meshnode/internal/roster"
)

// ValidateAgent reports why name cannot name a new agent, or nil. It takes
// roster's rule (what AGENTS.md and citations can carry) and, for a name
// being chosen now, also asks for a letter or digit first: a leading "-"
// reads as a flag and a leading "." as a hidden file.
func ValidateAgent(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("agent name is empty")
	case len(name) > roster.MaxNameBytes:
		return fmt.Errorf("agent name %q is longer than %d characters", name, roster.MaxNameBytes)
	case !roster.ValidName(name) || !isAlnum(name[0]):
		return fmt.Errorf("agent name %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
