package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/meshnode/meshnode/internal/pullrequest"
	"github.com/meshnode/meshnode/internal/pullrequest/fakegithub"
)

// checkStep returns the shell of check.yml's step that runs the gate, and
// its working directory.
func checkStep(t *testing.T) (run, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "check.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name, Run string
				Dir       string `yaml:"working-directory"`
			}
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	for _, s := range wf.Jobs["check"].Steps {
		if s.Name == "Check the pull request's files" {
			return s.Run, s.Dir
		}
	}
	t.Fatal("check.yml has no step \"Check the pull request's files\"")
	return "", ""
}

// git runs git in dir with a fixed identity and no machine config.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestCheckWorkflowStepFailsAHostilePullRequest runs the check workflow's
// own shell step in bash, as the runner would: base/ is the base branch
// (the checker's side), pr/ a clone whose head commit is the pull
// request, and the GitHub API is the fake. A hostile head must make the
// step exit non-zero and leave a failure status on it; an honest one
// passes with a success status.
func TestCheckWorkflowStepFailsAHostilePullRequest(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	meshnode, err := exec.LookPath("meshnode") // the test binary, put on PATH by TestMain
	if err != nil {
		t.Fatal(err)
	}
	run, workdir := checkStep(t)
	tests := []struct {
		name   string
		head   func(t *testing.T, pr string)
		exit   int
		status string
		out    string
	}{
		{"a file named -h beside an html page", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, "-h", "help\n")
			writeCheckNodeFile(t, pr, "--dir=x", "x\n")
			writeCheckNodeFile(t, pr, "traces/x.html", "<script>alert(1)</script>")
		}, exitProblem, "failure", "traces/x.html:1: not a publishable name"},
		{"only a deletion of a published trace", func(t *testing.T, pr string) {
			git(t, pr, "rm", "-q", hostilePublished)
		}, exitProblem, "failure", hostilePublished + ":1: published file was deleted"},
		{"a newline in a name", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, "traces/a\nb.md", "# x\n")
		}, exitProblem, "failure", `"traces/a\nb.md":1: not a publishable name`},
		{"a symlinked IDENTITY.md", func(t *testing.T, pr string) {
			symlink(t, ".git/config", filepath.Join(pr, "IDENTITY.md"))
		}, exitProblem, "failure", "IDENTITY.md:1: IDENTITY.md is a symbolic link"},
		// IDENTITY.md is the node's own word about itself: a mirror
		// readers turn to while the origin is down (on a1601b37 green),
		// or who the node says it is, is the owner's to change.
		{"a mirror added to IDENTITY.md", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, "IDENTITY.md", "# ada\nmirror: https://eve.example/ada/\n")
		}, exitProblem, "failure", "IDENTITY.md:1: changes its mirror lines, where peers read this node's signed log and files while its origin is down: the gate never passes a change to IDENTITY.md"},
		{"the human named in IDENTITY.md", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, "IDENTITY.md", "# ada\nhuman: eve\n")
		}, exitProblem, "failure", "IDENTITY.md:1: changes who it says this node is"},
		// Nothing but node data is ever green: each of these is a pull
		// request a person must review (docs/github.md).
		{"the heartbeat workflow, which holds contents: write", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, ".github/workflows/heartbeat.yml", "on: push\njobs: {}\n")
		}, exitProblem, "failure", ".github/workflows/heartbeat.yml:1: not node data: it changes a GitHub workflow"},
		{"the gate's own workflow", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, ".github/workflows/check.yml", "on: pull_request\njobs: {}\n")
		}, exitProblem, "failure", ".github/workflows/check.yml:1: not node data: it changes a GitHub workflow"},
		{"the founders compiled into the program", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, "internal/signal/founders.go", "package signal\n\nvar extra = \"eve\"\n")
		}, exitProblem, "failure", "internal/signal/founders.go:1: not node data: it changes the program's code"},
		{"a replace line in go.mod", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, "go.mod", "module x\n\nreplace gopkg.in/yaml.v3 => github.com/eve/yaml v0.0.1\n")
		}, exitProblem, "failure", "go.mod:1: not node data: it changes the program's dependencies"},
		{".gitattributes that rewrites the published traces", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, ".gitattributes", "traces/** eol=crlf\n")
		}, exitProblem, "failure", ".gitattributes:1: not node data: it changes how git stores, filters or ignores files"},
		{".gitattributes hidden inside traces/", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, "traces/.gitattributes", "* eol=crlf\n")
		}, exitProblem, "failure", "traces/.gitattributes:1: not node data"},
		{"a renamed page of the docs", func(t *testing.T, pr string) {
			git(t, pr, "mv", "docs/a.md", "docs/b.md")
		}, exitProblem, "failure", "docs/a.md:1: not node data: it is not a file of the node's data (documentation, scripts, anything else the gate does not check) (with 1 other path(s) of the kind: docs/b.md)"},
		{"a deleted README", func(t *testing.T, pr string) {
			git(t, pr, "rm", "-q", "README.md")
		}, exitProblem, "failure", "README.md:1: not node data"},
		{"a published trace made executable", func(t *testing.T, pr string) {
			if err := os.Chmod(filepath.Join(pr, filepath.FromSlash(hostilePublished)), 0o755); err != nil {
				t.Fatal(err)
			}
		}, exitProblem, "failure", hostilePublished + ":1: an executable file"},
		{"a symbolic link outside the node's files", func(t *testing.T, pr string) {
			symlink(t, "/etc/passwd", filepath.Join(pr, "docs", "passwd"))
		}, exitProblem, "failure", "docs/passwd:1: not node data"},
		{"a submodule", func(t *testing.T, pr string) {
			git(t, pr, "update-index", "--add", "--cacheinfo", "160000,"+git(t, pr, "rev-parse", "HEAD")+",vendor/evil")
			mkdir(t, filepath.Join(pr, "vendor", "evil"))
			writeCheckNodeFile(t, pr, ".gitmodules", "[submodule \"evil\"]\n\tpath = vendor/evil\n\turl = https://example.org/evil.git\n")
		}, exitProblem, "failure", ".gitmodules:1: not node data: it changes how git stores"},
		{"a submodule at IDENTITY.md", func(t *testing.T, pr string) {
			git(t, pr, "rm", "-q", "IDENTITY.md")
			git(t, pr, "update-index", "--add", "--cacheinfo", "160000,"+git(t, pr, "rev-parse", "HEAD")+",IDENTITY.md")
			mkdir(t, filepath.Join(pr, "IDENTITY.md"))
		}, exitProblem, "failure", "IDENTITY.md:1: a directory (or a submodule)"},
		{"an honest trace", func(t *testing.T, pr string) {
			writeCheckNodeFile(t, pr, "traces/2026-03-02-second.md", "---\ntitle: Second\n---\n\n# Second\n")
		}, 0, "success", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			base := filepath.Join(ws, "base")
			if err := os.CopyFS(base, os.DirFS(hostileBase(t, adaFounder))); err != nil {
				t.Fatal(err)
			}
			writeCheckNodeFile(t, base, "README.md", "# ada's node\n")
			writeCheckNodeFile(t, base, "docs/a.md", "a\n")
			git(t, base, "init", "-q", "-b", "main")
			git(t, base, "add", "-A")
			git(t, base, "commit", "-q", "-m", "base")
			pr := filepath.Join(ws, "pr")
			git(t, ws, "clone", "-q", base, pr)
			tt.head(t, pr)
			git(t, pr, "add", "-A")
			git(t, pr, "commit", "-q", "-m", "head")
			head := git(t, pr, "rev-parse", "HEAD")

			f, c := fakegithub.New(t, nil)
			f.KnowCommit(head)
			cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", run)
			cmd.Dir = filepath.Join(ws, workdir)
			cmd.Env = append(os.Environ(), "MESHNODE="+meshnode, "BASE_DIR="+base, "HEAD_SHA="+head,
				"RUNNER_TEMP="+t.TempDir(), "GITHUB_TOKEN=t0ken", "GITHUB_REPOSITORY="+fakegithub.Owner+"/"+fakegithub.Repo,
				"GITHUB_API_URL="+c.BaseURL.String(), "GITHUB_ACTIONS=", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.exit {
				t.Fatalf("the step exited %d, want %d:\n%s", code, tt.exit, out)
			}
			if !strings.Contains(string(out), tt.out) {
				t.Errorf("the step's output lacks %q:\n%s", tt.out, out)
			}
			st := f.Statuses(head)
			if len(st) != 1 || st[0].Context != pullrequest.CheckContext || st[0].State != tt.status {
				t.Errorf("statuses on the head: %+v, want one %q %s", st, pullrequest.CheckContext, tt.status)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
