package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
)

// TestCheckNeverPassesAChangeOfTheLogKey: the log_key line of
// IDENTITY.md is the key peers check the node's log with; a pull request
// that adds, changes or removes it fails, one that edits the rest passes.
func TestCheckNeverPassesAChangeOfTheLogKey(t *testing.T) {
	const keyA = "log_key: ours.example/mesh+12345678+AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
	const keyB = "log_key: ours.example/mesh+87654321+ASAfHh0cGxoZGBcWFRQTEhEQDw4NDAsKCQgHBgUEAwI="
	identity := "# IDENTITY\n\nname: ours\nrole: mapper\n"
	cases := []struct {
		name, base, pr string
		refused        bool
	}{
		{"key changed", identity + keyA + "\n", identity + keyB + "\n", true},
		{"key removed", identity + keyA + "\n", identity, true},
		{"key added", identity, identity + keyA + "\n", true},
		{"second key added", identity + keyA + "\n", identity + keyA + "\n" + keyB + "\n", true},
		{"other field edited", identity + keyA + "\n", strings.Replace(identity, "mapper", "cartographer", 1) + keyA + "\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := cleanNode(t)
			write(t, base, node.IdentityFile, c.base)
			pr := filepath.Join(t.TempDir(), "pr")
			if err := os.CopyFS(pr, os.DirFS(base)); err != nil {
				t.Fatal(err)
			}
			write(t, pr, node.IdentityFile, c.pr)
			o := options(pr, node.IdentityFile)
			o.Base = base
			got := strings.Join(lines(Check(o)), "\n")
			if refused := strings.Contains(got, "log_key"); refused != c.refused {
				t.Errorf("refused = %v, want %v; problems:\n%s", refused, c.refused, got)
			}
		})
	}
}
