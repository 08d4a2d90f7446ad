package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
)

// commitRepo makes a bare "origin" with one commit and a clone of it, with
// the machine's git configuration kept out, and returns the clone.
func commitRepo(t *testing.T) (clone, bare string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Test Person")
	t.Setenv("GIT_AUTHOR_EMAIL", "person@example.org")
	t.Setenv("GIT_COMMITTER_NAME", "Test Person")
	t.Setenv("GIT_COMMITTER_EMAIL", "person@example.org")
	for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"} {
		t.Setenv(k, "")
	}
	root := t.TempDir()
	bare, clone = filepath.Join(root, "origin.git"), filepath.Join(root, "node")
	gitT(t, root, "init", "--quiet", "--bare", "-b", "main", bare)
	gitT(t, root, "clone", "--quiet", bare, clone)
	writeT(t, clone, "MANIFEST.md", "# MANIFEST\n")
	gitT(t, clone, "add", ".")
	gitT(t, clone, "commit", "--quiet", "-m", "start")
	gitT(t, clone, "push", "--quiet", "origin", "main")
	return clone, bare
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeT(t *testing.T, dir, path, content string) {
	t.Helper()
	p := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const commitSummary = `{"peers_polled": 3, "peers_with_new": 2, "new_traces": 3, "validations_published": 1,
 "hash_mismatches": [{"peer": "noob", "url": "https://noob.example/t.md", "seq": 7, "claimed": "sha256:aa", "served": "sha256:bb"}],
 "failures": [], "unreachable": ["ghost"], "changed": true}`

func TestCommitCommandCommitsAndPushesWithTheSummaryMessage(t *testing.T) {
	dir, bare := commitRepo(t)
	writeT(t, dir, "traces/new.md", "# New\n")
	summary := filepath.Join(t.TempDir(), "hb.json")
	writeT(t, filepath.Dir(summary), "hb.json", commitSummary)

	code, stdout, stderr := runSetupCLI(t, "commit", "--dir", dir, "--summary", summary, "--push")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "heartbeat: 3 new traces from 2 peers, 1 validation published, 1 hash mismatch, 1 peer unreachable"
	if !strings.Contains(stdout, "committed and pushed") || !strings.Contains(stdout, want) {
		t.Errorf("stdout = %q, want it to say it pushed %q", stdout, want)
	}
	// Outside GitHub Actions the commit is the person's.
	if got := gitT(t, bare, "log", "-1", "--format=%an: %s", "main"); got != "Test Person: "+want+"\n" {
		t.Errorf("remote head = %q", got)
	}
	if strings.Contains(stdout, "::") {
		t.Errorf("annotations printed outside GitHub Actions:\n%s", stdout)
	}
}

func TestCommitCommandReportsToGitHubActions(t *testing.T) {
	dir, _ := commitRepo(t)
	tmp := t.TempDir()
	summary, stepSummary, output := filepath.Join(tmp, "hb.json"), filepath.Join(tmp, "step.md"), filepath.Join(tmp, "out")
	writeT(t, tmp, "hb.json", commitSummary)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", stepSummary)
	t.Setenv("GITHUB_OUTPUT", output)

	tests := []struct {
		name        string
		change      bool
		wantChanged string
	}{
		{"something changed", true, "changed=true\npushed=true\n"},
		{"nothing changed", false, "changed=false\npushed=false\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(output)
			os.Remove(stepSummary)
			if tt.change {
				writeT(t, dir, "validations/val-aaaaaaaaaaaa.md", "# VALIDATION\n")
			}
			code, stdout, stderr := runSetupCLI(t, "commit", "--dir", dir, "--summary", summary, "--push")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, want := range []string{"::error title=hash mismatch%3A noob seq 7::", "::warning title=peer unreachable%3A ghost::"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks annotation %q:\n%s", want, stdout)
				}
			}
			md, _ := os.ReadFile(stepSummary)
			if !strings.Contains(string(md), "| new traces | 3 |") {
				t.Errorf("job summary lacks the table:\n%s", md)
			}
			out, _ := os.ReadFile(output)
			if !strings.HasPrefix(string(out), tt.wantChanged) || !strings.Contains(string(out), "\nsha=") {
				t.Errorf("step outputs = %q, want prefix %q and a sha", out, tt.wantChanged)
			}
			if tt.change {
				if got := gitT(t, dir, "log", "-1", "--format=%an"); got != "github-actions[bot]\n" {
					t.Errorf("commit in Actions by %q, want the bot", got)
				}
			}
		})
	}
}

func TestCommitCommandRefusesBadInput(t *testing.T) {
	dir, _ := commitRepo(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	writeT(t, filepath.Dir(bad), "bad.json", "not json")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"missing summary", []string{"--summary", filepath.Join(dir, "none.json")}, exitUsage, "read heartbeat summary"},
		{"summary not JSON", []string{"--summary", bad}, exitUsage, "parse heartbeat summary"},
		{"negative keepalive", []string{"--keepalive-after", "-1h"}, exitUsage, "is negative"},
		{"bad clock", []string{"--now", "yesterday"}, exitUsage, "not an RFC3339 time"},
		{"zero retries", []string{"--retries", "0"}, exitUsage, "--retries 0"},
		{"stray argument", []string{"now"}, exitUsage, `unexpected argument "now"`},
		{"not a repository", []string{"--dir", t.TempDir()}, exitUsage, "not a git repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runSetupCLI(t, append([]string{"commit", "--dir", dir}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tt.wantCode, tt.wantErr)
			}
		})
	}
}

func TestCommitCommandMakesAKeepaliveCommitAfterALongQuiet(t *testing.T) {
	dir, bare := commitRepo(t)
	code, stdout, stderr := runSetupCLI(t, "commit", "--dir", dir, "--push", "--keepalive-after", "720h", "--now", "2100-01-01T00:00:00Z")
	if code != exitOK || !strings.Contains(stdout, "keepalive commit") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if got := gitT(t, bare, "log", "-1", "--format=%s", "main"); !strings.HasPrefix(got, "heartbeat: keepalive, no change for ") {
		t.Errorf("remote head = %q", got)
	}
}

// TestCommitCommandOnARebaseConflictSaysSoOnceAndKeepsTheTree: a conflict
// with another push is exit 2, said once, with the hint to resolve first;
// the tree is left as it was, a person's other edit included, and running
// commit --push again meets the same conflict (docs/github.md, Commit and
// push).
func TestCommitCommandOnARebaseConflictSaysSoOnceAndKeepsTheTree(t *testing.T) {
	dir, bare := commitRepo(t)
	writeT(t, dir, "README.md", "readme\n")
	gitT(t, dir, "add", "README.md")
	gitT(t, dir, "commit", "--quiet", "-m", "readme")
	gitT(t, dir, "push", "--quiet", "origin", "main")
	other := filepath.Join(t.TempDir(), "other")
	gitT(t, filepath.Dir(other), "clone", "--quiet", bare, other)
	writeT(t, other, "MANIFEST.md", "# MANIFEST\n\ntheirs\n")
	gitT(t, other, "commit", "--quiet", "-am", "theirs")
	gitT(t, other, "push", "--quiet", "origin", "main")
	writeT(t, dir, "MANIFEST.md", "# MANIFEST\n\nours\n")
	writeT(t, dir, "README.md", "my notes\n")

	want := "meshnode: commit: rebase onto origin main: conflict in MANIFEST.md: another push changed the same lines\n" +
		"hint: the commit stays local: run 'git pull --rebase origin main', resolve, then 'meshnode commit --push'\n"
	for run := 1; run <= 2; run++ {
		code, _, stderr := runSetupCLI(t, "commit", "--dir", dir, "--push")
		if code != exitUsage || stderr != want {
			t.Fatalf("run %d: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", run, code, stderr, exitUsage, want)
		}
		if st := gitT(t, dir, "status", "--porcelain"); st != " M README.md\n" {
			t.Errorf("run %d: git status = %q, want the person's README.md edit only", run, st)
		}
	}
	if got := gitT(t, bare, "show", "main:MANIFEST.md"); !strings.Contains(got, "theirs") {
		t.Errorf("origin's MANIFEST.md = %q, want theirs", got)
	}
}

// TestCommitHelpAndDocsNameEveryStagedPath: what 'commit -h', docs/cli/commit.md
// and docs/github.md say commit stages is node.Paths, what it does stage.
func TestCommitHelpAndDocsNameEveryStagedPath(t *testing.T) {
	want := strings.Join(node.Paths, " ")
	code, stdout, _ := runSetupCLI(t, "commit", "-h")
	if code != exitOK || !strings.Contains(stdout, "\n  "+want+"\n") {
		t.Errorf("commit -h (exit %d) does not list %q:\n%s", code, want, stdout)
	}
	for _, doc := range []string{"docs/cli/commit.md", "docs/github.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(strings.Fields(string(data)), " "); !strings.Contains(text, "`"+want+"`") {
			t.Errorf("%s does not list the staged paths as `%s`", doc, want)
		}
	}
}
