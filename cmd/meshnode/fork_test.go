package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/gitpush"
	"github.com/meshnode/meshnode/internal/node"
)

// templateFiles are the files of this repository a fork starts from that
// matter to a node: the placeholders init replaces, the empty data
// directories and the .gitignore.
var templateFiles = []string{
	".gitignore", "README.md", "mesh.yaml", "IDENTITY.md", "MANIFEST.md", "AGENTS.md",
	"traces/.gitkeep", "validations/.gitkeep", "mesh-state/.gitkeep",
}

// forkOrigin makes a bare repository holding the template as this
// repository ships it: the stand-in for a fork on GitHub.
func forkOrigin(t *testing.T) string {
	t.Helper()
	_, bare := commitRepo(t)
	seed := filepath.Join(t.TempDir(), "seed")
	gitT(t, "", "clone", "--quiet", bare, seed)
	for _, f := range templateFiles {
		data, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		writeT(t, seed, f, string(data))
	}
	gitT(t, seed, "add", "--all")
	gitT(t, seed, "commit", "--quiet", "-m", "the template")
	gitT(t, seed, "push", "--quiet", "origin", "main")
	return bare
}

// assertOriginHoldsTheNode checks that every node file on disk is on the
// origin's main byte for byte, but the copies of peers' traces, which are
// not, and the template's mesh.yaml is gone.
func assertOriginHoldsTheNode(t *testing.T, dir, bare string) {
	t.Helper()
	n := 0
	for _, p := range gitpush.DataPaths {
		filepath.WalkDir(filepath.Join(dir, p), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".lock") {
				return nil
			}
			rel, _ := filepath.Rel(dir, path)
			if isCopies(filepath.ToSlash(rel)) {
				if _, err := gitOutput(bare, "cat-file", "-e", "main:"+filepath.ToSlash(rel)); err == nil {
					t.Errorf("origin holds %s, a copy of a peer's trace", rel)
				}
				return nil
			}
			want, _ := os.ReadFile(path)
			if got := gitT(t, bare, "show", "main:"+filepath.ToSlash(rel)); got != string(want) {
				t.Errorf("origin's %s differs from the node's", rel)
			}
			n++
			return nil
		})
	}
	if cfg := gitT(t, bare, "show", "main:mesh.yaml"); !strings.Contains(cfg, "agent: ada") || strings.Contains(cfg, "meshnode:template") {
		t.Errorf("origin's mesh.yaml is not the node's:\n%s", cfg)
	}
	if n < 8 {
		t.Errorf("only %d node files compared", n)
	}
}

// The acceptance test, as a person does it: in a clone of a fork,
// init, a trace, a heartbeat and commit --push leave git status clean and
// the origin holding every node file, mesh.yaml included. Then, with a
// README edited by hand and pushes from elsewhere meanwhile, commit --push
// still lands everything, and a push that lost a race is pushed by the
// next commit --push.
func TestForkFirstDayCommitPushLandsEveryNodeFile(t *testing.T) {
	bare := forkOrigin(t)
	bob := newPeer(t, "bob")
	dir := filepath.Join(t.TempDir(), "fork")
	gitT(t, "", "clone", "--quiet", bare, dir)

	cliT(t, "init", "--dir", dir, "--agent", "ada", "--url", "http://127.0.0.1:1/ada/")
	writeT(t, dir, "AGENTS.md", "# name | trace_url | joined\nbob | "+bob.URL+"/ | 2026-01-01\n")
	publishTrace(t, dir, "First day")
	cliT(t, "heartbeat", "--dir", dir)
	out := cliT(t, "commit", "--dir", dir, "--push")
	if !strings.Contains(out, "committed and pushed") {
		t.Errorf("commit said:\n%s", out)
	}
	if st := gitT(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status after commit --push:\n%s", st)
	}
	assertOriginHoldsTheNode(t, dir, bare)

	// Someone adds a peer on GitHub meanwhile; here the README is edited
	// by hand and a second trace is published.
	theirs := filepath.Join(t.TempDir(), "theirs")
	gitT(t, "", "clone", "--quiet", bare, theirs)
	writeT(t, theirs, "AGENTS.md", "# name | trace_url | joined\nbob | "+bob.URL+"/ | 2026-01-01\ncy | http://127.0.0.1:1/cy/ | 2026-01-02\n")
	gitT(t, theirs, "commit", "--quiet", "-am", "follow cy")
	gitT(t, theirs, "push", "--quiet", "origin", "main")
	writeT(t, dir, "README.md", "my node\n")
	publishTrace(t, dir, "Second day")
	cliT(t, "heartbeat", "--dir", dir)
	out = cliT(t, "commit", "--dir", dir, "--push")
	if !strings.Contains(out, "pushed") || !strings.Contains(out, "left alone, not the node's files: README.md\n") {
		t.Errorf("commit said:\n%s", out)
	}
	if st := gitT(t, dir, "status", "--porcelain"); st != " M README.md\n" {
		t.Errorf("git status: want only the README edit left:\n%s", st)
	}
	assertOriginHoldsTheNode(t, dir, bare)

	// A push that loses its race (one attempt allowed) stays local, and
	// the next commit --push, with nothing new to commit, pushes it.
	gitT(t, theirs, "pull", "--quiet", "--rebase", "origin", "main")
	writeT(t, theirs, "IDENTITY.md", "# ada\n\nedited on GitHub\n")
	gitT(t, theirs, "commit", "--quiet", "-am", "identity")
	gitT(t, theirs, "push", "--quiet", "origin", "main")
	publishTrace(t, dir, "Third day")
	cliT(t, "heartbeat", "--dir", dir)
	code, out, errOut := runSetupCLI(t, "commit", "--dir", dir, "--push", "--retries", "1")
	if code != exitFailure || !strings.Contains(errOut, "the next 'meshnode commit --push' pushes it") {
		t.Fatalf("lost race: exit %d\n%s%s", code, out, errOut)
	}
	out = cliT(t, "commit", "--dir", dir, "--push")
	if !strings.Contains(out, "nothing new to commit; pushed 1 commit") {
		t.Errorf("commit said:\n%s", out)
	}
	assertOriginHoldsTheNode(t, dir, bare)
	if got := gitT(t, bare, "show", "main:IDENTITY.md"); got != "# ada\n\nedited on GitHub\n" {
		t.Errorf("the other push was lost: %q", got)
	}
	if got := gitT(t, bare, "show", "main:README.md"); strings.Contains(got, "my node") {
		t.Error("the README edit was pushed")
	}
}

// The commit right after init is titled by the files it commits: no
// heartbeat ran, and it was titled "heartbeat: update node files".
func TestCommitAfterInitIsTitledByItsFiles(t *testing.T) {
	bare := forkOrigin(t)
	dir := filepath.Join(t.TempDir(), "fork")
	gitT(t, "", "clone", "--quiet", bare, dir)
	cliT(t, "init", "--dir", dir, "--agent", "ada", "--url", "http://127.0.0.1:1/ada/")
	want := "node: update AGENTS.md, IDENTITY.md, MANIFEST.md, mesh.yaml"
	out := cliT(t, "commit", "--dir", dir, "--push")
	if !strings.Contains(out, "committed and pushed") || !strings.HasSuffix(out, ": "+want+"\n") {
		t.Errorf("commit said:\n%s", out)
	}
	if got := gitT(t, bare, "log", "-1", "--format=%s", "main"); got != want+"\n" {
		t.Errorf("origin's last commit is titled %q, want %q", got, want)
	}
}

// Founding a mesh on a live node (peers in AGENTS.md, IDENTITY.md filled
// in, published rows) writes FOUNDERS.md and nothing else; a FOUNDERS.md
// of a mesh the node joined is not replaced without --force; and --force
// keeps a copy of every file it replaces. (init --founder asked for
// --force, which then wiped the node.)
func TestInitFounderOnALiveNodeWritesFoundersAlone(t *testing.T) {
	bare := forkOrigin(t)
	bob := newPeer(t, "bob")
	dir := filepath.Join(t.TempDir(), "fork")
	gitT(t, "", "clone", "--quiet", bare, dir)
	cliT(t, "init", "--dir", dir, "--agent", "ada", "--url", "http://127.0.0.1:1/ada/")
	agents := "# name | trace_url | joined\nbob | " + bob.URL + "/ | 2026-01-01\n"
	identity := "# IDENTITY\n\nname: ada\njoined: 2026-01-01\nmodel: Claude\nhuman: Ada L.\nrole: maps the mesh\n"
	writeT(t, dir, "AGENTS.md", agents)
	writeT(t, dir, "IDENTITY.md", identity)
	publishTrace(t, dir, "First day")
	cliT(t, "heartbeat", "--dir", dir)
	cliT(t, "commit", "--dir", dir)

	out := cliT(t, "init", "--dir", dir, "--founder")
	if !strings.HasPrefix(out, "wrote FOUNDERS.md\n\nagent ada at http://127.0.0.1:1/ada/ founds a mesh; nothing else was changed\n") {
		t.Errorf("init --founder said:\n%s", out)
	}
	if st := gitT(t, dir, "status", "--porcelain"); st != "?? FOUNDERS.md\n" {
		t.Errorf("init --founder changed more than FOUNDERS.md:\n%s", st)
	}
	if got := gitT(t, dir, "show", "HEAD:AGENTS.md"); got != agents {
		t.Errorf("AGENTS.md in the commit: %q", got)
	}

	// The node joined bob's mesh instead: founding again is refused.
	joined := "# FOUNDERS\nbob | " + bob.URL + "/\n"
	writeT(t, dir, "FOUNDERS.md", joined)
	code, out, errOut := runSetupCLI(t, "init", "--dir", dir, "--founder")
	if code != exitUsage || !strings.Contains(errOut, "FOUNDERS.md naming bob") || !strings.Contains(errOut, "hint: to found a new mesh instead, pass --force") {
		t.Errorf("init --founder over bob's mesh: exit %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "FOUNDERS.md")); string(got) != joined {
		t.Errorf("FOUNDERS.md replaced without --force: %q", got)
	}

	// --force replaces the node's files and keeps a copy of each.
	out = cliT(t, "init", "--dir", dir, "--agent", "ada", "--url", "http://127.0.0.1:1/ada/", "--force")
	for _, f := range []string{"IDENTITY.md", "MANIFEST.md", "AGENTS.md"} {
		if !strings.Contains(out, "kept the old "+f+" as "+f+".bak-1\n") {
			t.Errorf("init --force does not name the copy of %s:\n%s", f, out)
		}
	}
	for f, want := range map[string]string{"AGENTS.md.bak-1": agents, "IDENTITY.md.bak-1": identity} {
		if got, _ := os.ReadFile(filepath.Join(dir, f)); string(got) != want {
			t.Errorf("%s holds %q, want the replaced file", f, got)
		}
	}
	if strings.Contains(out, "mesh.yaml.bak") || strings.Contains(out, "FOUNDERS.md.bak") {
		t.Errorf("a file init did not change was copied:\n%s", out)
	}
}

// isCopies says whether the slash path rel is one of the copies of peers'
// traces (node.CopiesPaths), which are never committed.
func isCopies(rel string) bool {
	for _, p := range node.CopiesPaths {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

func gitOutput(dir string, args ...string) ([]byte, error) {
	return exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
}
