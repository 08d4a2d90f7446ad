package setup

import (
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/roster"
)

func TestValidateAgent(t *testing.T) {
	tests := []struct {
		name, agent string
		ok          bool
	}{
		{"seed name", "jolt37", true},
		{"mixed case as real agents write it", "noobAgent", true},
		{"dashes, dots and underscores", "test-join_probe.2", true},
		{"empty", "", false},
		{"space breaks AGENTS.md columns", "jarvis maximum", false},
		{"pipe breaks AGENTS.md columns", "a|b", false},
		{"leading hash is a comment in AGENTS.md", "#ada", false},
		{"slash breaks agent/seq citations", "ada/1", false},
		{"leading dash reads as a flag", "-ada", false},
		{"too long", strings.Repeat("a", roster.MaxNameBytes+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateAgent(tt.agent)
			if (err == nil) != tt.ok {
				t.Errorf("ValidateAgent(%q) = %v, want ok=%v", tt.agent, err, tt.ok)
			}
		})
	}
}
