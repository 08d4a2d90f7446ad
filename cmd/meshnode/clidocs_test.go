package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// documentedElsewhere are the commands whose page is not in docs/cli/, and
// where the README says it is instead.
var documentedElsewhere = map[string]string{
	"build": "docs/site.md",
	"serve": "docs/site.md",
	"demo":  "internal/demo/demo.go",
}

// TestEveryCommandHasAPageInDocsCLI holds the README's "docs/cli/ has a page
// per command" to the registered commands.
func TestEveryCommandHasAPageInDocsCLI(t *testing.T) {
	var missing []string
	for name := range commands {
		page := filepath.Join("..", "..", "docs", "cli", name+".md")
		if elsewhere, ok := documentedElsewhere[name]; ok {
			page = filepath.Join("..", "..", filepath.FromSlash(elsewhere))
		}
		if _, err := os.Stat(page); err != nil {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("commands without a page: %v", missing)
	}
}
