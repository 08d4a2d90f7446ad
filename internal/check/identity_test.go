package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
)

// TestCheckNeverPassesAChangeOfIdentity: a pull request that changes
// IDENTITY.md in any way fails, and the problem names what it changes:
// the log_key line (who may sign the node's history), a mirror line
// (where readers turn while the origin is down; on a1601b37 a stranger's
// added mirror passed), or who the node says it is. One that names
// IDENTITY.md but leaves its bytes as they are passes.
func TestCheckNeverPassesAChangeOfIdentity(t *testing.T) {
	const keyA = "log_key: ours.example/mesh+12345678+AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
	const keyB = "log_key: ours.example/mesh+87654321+ASAfHh0cGxoZGBcWFRQTEhEQDw4NDAsKCQgHBgUEAwI="
	const mirror = "mirror: https://eve.example/mirror/\n"
	identity := "# IDENTITY\n\nname: ours\nrole: mapper\n" + keyA + "\n"
	const key, mirrors, who = "its log_key line", "its mirror lines", "who it says this node is"
	cases := []struct {
		name, base, pr string
		want           []string // what the problem names; none: it passes
	}{
		{"key changed", identity, strings.Replace(identity, keyA, keyB, 1), []string{key}},
		{"key removed", identity, strings.Replace(identity, keyA+"\n", "", 1), []string{key}},
		{"second key added", identity, identity + keyB + "\n", []string{key}},
		{"mirror added", identity, identity + mirror, []string{mirrors}},
		{"mirror indented and added first", identity, "  " + mirror + identity, []string{mirrors}},
		{"mirror replaced", identity + mirror, identity + "mirror: https://eve.example/other/\n", []string{mirrors}},
		{"mirror removed", identity + mirror, identity, []string{mirrors}},
		{"role edited", identity, strings.Replace(identity, "mapper", "cartographer", 1), []string{who}},
		{"key and mirror together", identity, strings.Replace(identity, keyA, keyB, 1) + mirror, []string{key, mirrors}},
		{"added where the base has none", "", identity, []string{key, who}},
		{"deleted", identity, "", []string{"deletes it"}},
		{"named but unchanged", identity + mirror, identity + mirror, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := cleanNode(t)
			put(t, base, c.base)
			got := checkPR(t, base, node.IdentityFile, func(pr string) { put(t, pr, c.pr) })
			if len(c.want) == 0 {
				if got != "" {
					t.Errorf("an unchanged IDENTITY.md fails:\n%s", got)
				}
				return
			}
			if !strings.HasPrefix(got, node.IdentityFile+":1: changes ") && !strings.HasPrefix(got, node.IdentityFile+":1: deletes ") ||
				!strings.Contains(got, "the gate never passes a change to IDENTITY.md") || strings.Count(got, "\n") > 0 {
				t.Fatalf("want one problem refusing the change, got:\n%s", got)
			}
			for _, w := range []string{key, mirrors, who} {
				if named := strings.Contains(got, w); named != slices.Contains(c.want, w) {
					t.Errorf("names %q: %v, want %v; problem: %s", w, named, !named, got)
				}
			}
		})
	}
}

// put writes IDENTITY.md into dir, or removes it for "".
func put(t *testing.T, dir, identity string) {
	t.Helper()
	if identity == "" {
		if err := os.Remove(filepath.Join(dir, node.IdentityFile)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return
	}
	write(t, dir, node.IdentityFile, identity)
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
