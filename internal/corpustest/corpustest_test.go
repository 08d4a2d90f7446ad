package corpustest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirHoldsTheAgentsFile(t *testing.T) {
	d := Dir(t)
	if _, err := os.Stat(filepath.Join(d, "AGENTS.md")); err != nil {
		t.Fatalf("corpus found at %s but it has no AGENTS.md: %v", d, err)
	}
}
