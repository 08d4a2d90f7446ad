package main

import (
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// mistakeScene is a directory a mistake is made in.
type mistakeScene func(t *testing.T) string

// unsetFork is a clone of the template before init: placeholders only.
func unsetFork(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "fork")
	for _, f := range templateFiles {
		data, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		writeT(t, dir, f, string(data))
	}
	return dir
}

// brokenConfig is a node whose mesh.yaml does not parse.
func brokenConfig(t *testing.T) string {
	dir := newNode(t, nil)
	writeT(t, dir, "mesh.yaml", "agent: [ada\n")
	return dir
}

func aNode(t *testing.T) string { return newNode(t, nil) }

// aClone is a node made with init in a clone of a fork, with a change to
// commit.
func aClone(t *testing.T) string {
	dir, _ := commitRepo(t)
	cliT(t, "init", "--dir", dir, "--agent", "ada", "--url", "http://127.0.0.1:1/ada/", "--force")
	return dir
}

// removedKey is a node whose mesh.yaml still sets a key that was removed.
func removedKey(t *testing.T) string {
	dir := newNode(t, nil)
	data, err := os.ReadFile(filepath.Join(dir, "mesh.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeT(t, dir, "mesh.yaml", string(data)+"standing:\n  bootstrap: true\n")
	return dir
}

// TestEveryCommandAnswersAMistakeWithExit2AndAHint is the CLI's one
// convention, over every command: 0 ok, 1 unexpected, 2 a mistake you can
// fix, said in one line with a hint, 3 problems found. Every registered
// command must have a row.
func TestEveryCommandAnswersAMistakeWithExit2AndAHint(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		name     string
		scene    mistakeScene
		args     []string // DIR is replaced by the scene's directory
		wantCode int
		wantErr  string
	}{
		{"help of an unknown command", aNode, []string{"help", "nope"}, exitUsage, `unknown command "nope"`},
		{"unknown command", aNode, []string{"nope"}, exitUsage, `unknown command "nope"`},
		{"version with an argument", aNode, []string{"version", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"init without an agent off a terminal", func(t *testing.T) string { return t.TempDir() }, []string{"init", "--dir", "DIR", "--url", "https://ada.github.io/node/"}, exitUsage, "--agent"},
		{"init over a node", aNode, []string{"init", "--dir", "DIR", "--agent", "ada", "--url", "https://ada.github.io/node/"}, exitUsage, "already holds"},
		{"trace without new", aNode, []string{"trace", "--dir", "DIR", "old"}, exitUsage, "the only subcommand is new"},
		{"heartbeat before init", unsetFork, []string{"heartbeat", "--dir", "DIR"}, exitUsage, "mesh.yaml"},
		{"heartbeat with a broken mesh.yaml", brokenConfig, []string{"heartbeat", "--dir", "DIR"}, exitUsage, "line 1"},
		{"heartbeat with a removed key gets mesh.yaml's hint", removedKey, []string{"heartbeat", "--dir", "DIR"}, exitUsage, "hint: see docs/config.md"},
		{"score with a removed key gets mesh.yaml's hint", removedKey, []string{"score", "--dir", "DIR"}, exitUsage, "hint: see docs/config.md"},
		{"heartbeat with an argument", aNode, []string{"heartbeat", "--dir", "DIR", "extra-arg"}, exitUsage, `heartbeat: unexpected argument "extra-arg"`},
		{"watch with an argument", aNode, []string{"watch", "--dir", "DIR", "extra-arg"}, exitUsage, `watch: unexpected argument "extra-arg"`},
		{"watch with a negative interval", aNode, []string{"watch", "--dir", "DIR", "--interval", "-1s"}, exitUsage, "watch: --interval -1s is not between"},
		{"demo into a file", aNode, []string{"demo", "--dir", "DIR/mesh.yaml"}, exitUsage, "mesh.yaml is a file, not a directory"},
		{"demo under a file", aNode, []string{"demo", "--dir", "DIR/mesh.yaml/node"}, exitUsage, "is under a file, not a directory"},
		{"heartbeat log format", aNode, []string{"heartbeat", "--dir", "DIR", "--log-format", "xml"}, exitUsage, `unknown log format "xml"`},
		{"build before init", unsetFork, []string{"build", "--dir", "DIR"}, exitUsage, "meshnode init"},
		{"build of a directory that does not exist", aNode, []string{"build", "--dir", "DIR/nope"}, exitUsage, "does not exist"},
		{"serve of a file", aNode, []string{"serve", "--dir", "DIR/mesh.yaml", "--addr", "127.0.0.1:0"}, exitUsage, "is a file, not a directory"},
		{"trace new in a directory that does not exist", aNode, []string{"trace", "--dir", "DIR/nope", "new", "Title"}, exitUsage, "does not exist"},
		{"build into a file", aNode, []string{"build", "--dir", "DIR", "--out", "DIR/mesh.yaml"}, exitUsage, "mesh.yaml"},
		{"build into a directory it cannot create", aNode, []string{"build", "--dir", "DIR", "--out", "/proc/x"}, exitUsage, "build: --out /proc/x: cannot use it as the output directory: mkdir /proc/x"},
		{"build into a path under a file", aNode, []string{"build", "--dir", "DIR", "--out", "DIR/mesh.yaml/site"}, exitUsage, "mesh.yaml/site: cannot use it as the output directory"},
		{"build into someone's directory", aNode, []string{"build", "--dir", "DIR", "--out", "DIR"}, exitUsage, "not a site meshnode built"},
		{"serve on no address", aNode, []string{"serve", "--dir", "DIR", "--addr", "nope"}, exitUsage, `--addr "nope"`},
		{"serve on a port in use", aNode, []string{"serve", "--dir", "DIR", "--addr", busy.Addr().String()}, exitUsage, "in use"},
		{"serve before init", unsetFork, []string{"serve", "--dir", "DIR", "--addr", "127.0.0.1:0"}, exitUsage, "meshnode init"},
		{"demo in a directory that is not empty", aNode, []string{"demo", "--dir", "DIR"}, exitUsage, "not empty"},
		{"peers with a broken mesh.yaml", brokenConfig, []string{"peers", "--dir", "DIR"}, exitUsage, "line 1"},
		{"peers before init", unsetFork, []string{"peers", "--dir", "DIR"}, exitUsage, "meshnode init"},
		{"signal with a broken mesh.yaml", brokenConfig, []string{"signal", "--dir", "DIR"}, exitUsage, "line 1"},
		{"inbox action without an ID", aNode, []string{"inbox", "--dir", "DIR", "done"}, exitUsage, "inbox:"},
		{"inbox with a broken mesh.yaml", brokenConfig, []string{"inbox", "--dir", "DIR"}, exitUsage, "line 1"},
		{"score before init", unsetFork, []string{"score", "--dir", "DIR"}, exitUsage, "meshnode init"},
		{"score --pr without a token", aNode, []string{"score", "--dir", "DIR", "--pr"}, exitUsage, "GITHUB_TOKEN"},
		{"score --now without --explain", aNode, []string{"score", "--dir", "DIR", "--now", "2026-03-01T12:00:00Z"}, exitUsage, "score: --now without --explain"},
		{"check --now, which check does not take", aNode, []string{"check", "--dir", "DIR", "--now", "2026-03-01T12:00:00Z"}, exitUsage, "unknown flag: --now"},
		{"check --status-sha without a token", aNode, []string{"check", "--dir", "DIR", "--status-sha", "abc"}, exitUsage, "check --status-sha: GITHUB_TOKEN is not set"},
		{"check with a broken mesh.yaml", brokenConfig, []string{"check", "--dir", "DIR"}, exitUsage, "line 1"},
		{"doctor before init finds problems", unsetFork, []string{"doctor", "--dir", "DIR"}, exitProblem, "problem"},
		{"sign with a broken mesh.yaml", brokenConfig, []string{"sign", "--dir", "DIR"}, exitUsage, "line 1"},
		{"keygen without --out", aNode, []string{"keygen", "--dir", "DIR"}, exitUsage, "keygen --out FILE"},
		{"relay without --key", aNode, []string{"relay", "--dir", "DIR", "--url", "https://relay.example/"}, exitUsage, "relay --url URL --key FILE"},
		{"commit outside a repository", aNode, []string{"commit", "--dir", "DIR"}, exitUsage, "not a git repository"},
		{"commit --push to a remote that does not exist", aClone, []string{"commit", "--dir", "DIR", "--push", "--remote", "nosuch"}, exitUsage, `commit: remote "nosuch": no such remote`},
		{"worker without a queue database", aNode, []string{"worker"}, exitUsage, "worker: no queue database: set MESHNODE_QUEUE_DSN"},
		{"verify where no node is", func(t *testing.T) string { return t.TempDir() }, []string{"verify", "DIR"}, exitUsage, "no MANIFEST.md there"},
		{"bad --now", aNode, []string{"peers", "--dir", "DIR", "--now", "yesterday"}, exitUsage, "not an RFC3339 time"},
	}
	// Coverage counts only the rows written by hand above: the unknown-flag
	// row added below for every command would otherwise cover them all.
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.args[0]] = true
	}
	var missing []string
	for name := range commands {
		if !covered[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("commands with no row of their own: %v", missing)
	}
	for name := range commands {
		tests = append(tests, struct {
			name     string
			scene    mistakeScene
			args     []string
			wantCode int
			wantErr  string
		}{name + " with an unknown flag", aNode, []string{name, "--no-such-flag"}, exitUsage, "unknown flag: --no-such-flag"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GITHUB_TOKEN", "")
			t.Setenv("MESHNODE_QUEUE_DSN", "")
			t.Setenv("DATABASE_URL", "")
			dir := tt.scene(t)
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			code, stdout, stderr := runSetupCLI(t, args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Fatalf("meshnode %s: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, tt.wantCode, tt.wantErr, stdout, stderr)
			}
			if tt.wantCode == exitUsage {
				lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
				if !strings.HasPrefix(lines[0], "meshnode: ") || !strings.HasPrefix(lines[len(lines)-1], "hint: ") {
					t.Errorf("a mistake is said as 'meshnode: …' then 'hint: …':\n%s", stderr)
				}
				if stdout != "" {
					t.Errorf("a mistake does nothing, so it reports nothing done on stdout:\n%s", stdout)
				}
			}
		})
	}
}
