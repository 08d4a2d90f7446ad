package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
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
			got := checkPR(t, base, node.IdentityFile, func(pr string) { write(t, pr, node.IdentityFile, c.pr) })
			if refused := strings.Contains(got, "log_key"); refused != c.refused {
				t.Errorf("refused = %v, want %v; problems:\n%s", refused, c.refused, got)
			}
		})
	}
}

// TestTheHeartbeatsOwnRotationPassesItsGate: a rotation of the log's key
// done by the owner's heartbeat on main (sign --new-log-key, which sets
// log_key, adds the statement under log/ and its MANIFEST.md row) passes
// the gate `commit --check-status` runs over the heartbeat's own commit;
// the same change in a pull request does not.
func TestTheHeartbeatsOwnRotationPassesItsGate(t *testing.T) {
	const keyA = "log_key: ours.example/mesh+12345678+AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
	const keyB = "log_key: ours.example/mesh+87654321+ASAfHh0cGxoZGBcWFRQTEhEQDw4NDAsKCQgHBgUEAwI="
	base := cleanNode(t)
	write(t, base, node.IdentityFile, "# IDENTITY\n\nname: ours\n"+keyA+"\n")
	rotated := filepath.Join(t.TempDir(), "rotated")
	if err := os.CopyFS(rotated, os.DirFS(base)); err != nil {
		t.Fatal(err)
	}
	stmt := "meshnode log key rotation\n"
	write(t, rotated, "log/key/rotation-2", stmt)
	write(t, rotated, node.IdentityFile, "# IDENTITY\n\nname: ours\n"+keyB+"\n")
	row := manifest.Entry{Hash: manifest.HashBytes([]byte(stmt)), File: "log/key/rotation-2", Type: node.TypeKey, Status: publish.StatusPublished, Submitted: t0}
	o := publish.Options{Dir: rotated, Agent: agent, URL: ourURL, Now: t0, Add: []manifest.Entry{row}}
	if _, err := publish.Publish(o); err != nil {
		t.Fatal(err)
	}
	changed := []string{node.IdentityFile, node.ManifestFile, "log/key/rotation-2"}

	heartbeat := Options{Dir: rotated, Base: rotated, Files: changed, Agent: agent, URL: ourURL, Heartbeat: true}
	if got := lines(Check(heartbeat)); len(got) > 0 {
		t.Errorf("the heartbeat's rotation fails its gate:\n%s", strings.Join(got, "\n"))
	}
	pr := options(rotated, changed...)
	pr.Base = base
	if got := strings.Join(lines(Check(pr)), "\n"); !strings.Contains(got, "log_key") {
		t.Errorf("a pull request making the same change passes: %s", got)
	}
}
