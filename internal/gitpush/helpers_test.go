package gitpush

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// remote is a bare repository on disk with a first commit on main, the
// stand-in for GitHub in these tests.
type remote struct {
	t    *testing.T
	bare string
}

// isolateGit keeps the user's and the system's git configuration out of the
// tests.
func isolateGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	empty := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", empty)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Test Person")
	t.Setenv("GIT_AUTHOR_EMAIL", "person@example.org")
	t.Setenv("GIT_COMMITTER_NAME", "Test Person")
	t.Setenv("GIT_COMMITTER_EMAIL", "person@example.org")
}

func newRemote(t *testing.T) *remote {
	t.Helper()
	isolateGit(t)
	r := &remote{t: t, bare: filepath.Join(t.TempDir(), "origin.git")}
	run(t, "", "git", "init", "--quiet", "--bare", "-b", "main", r.bare)
	seed := r.clone()
	writeFile(t, seed, "MANIFEST.md", "# MANIFEST\n\nsequence: 1\n")
	writeFile(t, seed, "README.md", "a node\n")
	run(t, seed, "git", "add", ".")
	run(t, seed, "git", "commit", "--quiet", "-m", "start")
	run(t, seed, "git", "push", "--quiet", "origin", "main")
	return r
}

// clone makes a fresh working copy of the remote.
func (r *remote) clone() string {
	dir := filepath.Join(r.t.TempDir(), "work")
	run(r.t, "", "git", "clone", "--quiet", r.bare, dir)
	return dir
}

// log returns the subjects and authors on the remote's main, newest first.
func (r *remote) log() []string {
	out := run(r.t, r.bare, "git", "log", "--format=%an <%ae>: %s", "main")
	return strings.Split(strings.TrimSpace(out), "\n")
}

// show returns a file's content on the remote's main.
func (r *remote) show(path string) string {
	return run(r.t, r.bare, "git", "show", "main:"+path)
}

// pushChange commits content to path in dir and pushes it: another run
// getting there first.
func pushChange(t *testing.T, dir, path, content, msg string) {
	t.Helper()
	writeFile(t, dir, path, content)
	run(t, dir, "git", "add", path)
	run(t, dir, "git", "commit", "--quiet", "-m", msg)
	run(t, dir, "git", "push", "--quiet", "origin", "main")
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, dir, path, content string) {
	t.Helper()
	p := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sleeps records the waits CommitAndPush asks for, without waiting.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}
