package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/pullrequest"
	"github.com/meshnode/meshnode/internal/pullrequest/fakegithub"
	"github.com/meshnode/meshnode/internal/validation"
)

// protectedRemote makes a bare remote holding the hostile tests' node on
// main, protected as the recommended ruleset protects it: its pre-receive
// hook refuses to move main to a commit that has no success status
// "meshnode check" in the fake GitHub (GH006, as GitHub words it), and the
// fake takes statuses only on commits pushed to the remote. It returns a
// clone, the bare remote and the fake.
func protectedRemote(t *testing.T) (clone, bare string, f *fakegithub.Server) {
	t.Helper()
	clone, bare = commitRepo(t)
	if err := os.Remove(filepath.Join(clone, "MANIFEST.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(clone, os.DirFS(hostileBase(t, adaFounder))); err != nil {
		t.Fatal(err)
	}
	gitT(t, clone, "add", "-A")
	gitT(t, clone, "commit", "--quiet", "-m", "the node")
	gitT(t, clone, "push", "--quiet", "origin", "main")

	passed := t.TempDir() // one empty file per commit with a success status
	hook := "#!/bin/sh\nwhile read old new ref; do\n" +
		"  if [ \"$ref\" = refs/heads/main ] && [ ! -f '" + passed + "'/\"$new\" ]; then\n" +
		"    echo 'error: GH006: Protected branch update failed for refs/heads/main.' >&2\n" +
		"    echo 'error: Required status check \"meshnode check\" is expected.' >&2\n" +
		"    exit 1\n  fi\ndone\n"
	if err := os.WriteFile(filepath.Join(bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	f, c := fakegithub.New(t, nil)
	f.KnowRepository(bare)
	f.OnStatus(func(sha string, st fakegithub.Status) {
		if st.Context == pullrequest.CheckContext && st.State == "success" {
			if err := os.WriteFile(filepath.Join(passed, sha), nil, 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	t.Setenv("GITHUB_TOKEN", "t0ken")
	t.Setenv("GITHUB_REPOSITORY", fakegithub.Owner+"/"+fakegithub.Repo)
	t.Setenv("GITHUB_API_URL", c.BaseURL.String())
	return clone, bare, f
}

// heartbeatChange makes the changes a heartbeat makes: a validation of
// bob's verified trace, published in MANIFEST.md.
func heartbeatChange(t *testing.T, dir string) {
	t.Helper()
	writeCheckNodeFile(t, dir, "validations/"+validation.FileName(bobTraceHash), canonicalValidation(bobTraceHash, bobTraceURLCmd))
	if _, err := publish.Publish(publish.Options{Dir: dir, Agent: "ada", URL: hostileURL, Now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
}

func revParse(t *testing.T, dir, rev string) string {
	t.Helper()
	return strings.TrimSpace(gitT(t, dir, "rev-parse", rev))
}

// TestCommitCheckStatusPushesToAProtectedMain: main requires the status
// "meshnode check", so a plain push of the heartbeat's commit is refused
// (GH006) and the node stops publishing; with --check-status the commit is
// staged, passes the gate, gets the status and then lands.
func TestCommitCheckStatusPushesToAProtectedMain(t *testing.T) {
	t.Run("a plain push is refused", func(t *testing.T) {
		dir, bare, _ := protectedRemote(t)
		before := revParse(t, bare, "main")
		heartbeatChange(t, dir)
		code, _, stderr := runSetupCLI(t, "commit", "--dir", dir, "--push", "--retries", "1")
		if code == exitOK || !strings.Contains(stderr, "GH006") {
			t.Fatalf("exit %d, stderr %q; want the protected branch to refuse the push", code, stderr)
		}
		if revParse(t, bare, "main") != before {
			t.Error("main moved")
		}
	})
	t.Run("the heartbeat's commit lands with its status", func(t *testing.T) {
		dir, bare, f := protectedRemote(t)
		heartbeatChange(t, dir)
		code, stdout, stderr := runSetupCLI(t, "commit", "--dir", dir, "--push", "--check-status")
		if code != exitOK {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
		head := revParse(t, dir, "HEAD")
		if main, stage := revParse(t, bare, "main"), revParse(t, bare, HeartbeatStage); main != head || stage != head {
			t.Errorf("main %s, %s %s; want both at the commit %s", main, HeartbeatStage, stage, head)
		}
		if st := f.Statuses(head); len(st) != 1 || st[0].Context != pullrequest.CheckContext || st[0].State != "success" {
			t.Errorf("statuses on the commit: %+v, want one success %q", st, pullrequest.CheckContext)
		}
	})
	t.Run("a commit that carries a workflow is refused and marked failed", func(t *testing.T) {
		dir, bare, f := protectedRemote(t)
		before := revParse(t, bare, "main")
		// An earlier commit left unpushed, which the next push would carry.
		writeT(t, dir, ".github/workflows/heartbeat.yml", "on: push\njobs: {}\n")
		gitT(t, dir, "add", ".github")
		gitT(t, dir, "commit", "--quiet", "-m", "a workflow")
		heartbeatChange(t, dir)
		code, stdout, stderr := runSetupCLI(t, "commit", "--dir", dir, "--push", "--check-status")
		if code != exitProblem || !strings.Contains(stdout, ".github/workflows/heartbeat.yml:1: not node data") {
			t.Fatalf("exit %d\nstdout %s\nstderr %s\nwant exit 3 naming the workflow", code, stdout, stderr)
		}
		head := revParse(t, dir, "HEAD")
		if st := f.Statuses(head); len(st) != 1 || st[0].State != "failure" {
			t.Errorf("statuses on the commit: %+v, want one failure", st)
		}
		if revParse(t, bare, "main") != before {
			t.Error("main moved past a failed gate")
		}
	})
	t.Run("needs a token before committing anything", func(t *testing.T) {
		dir, _, _ := protectedRemote(t)
		t.Setenv("GITHUB_TOKEN", "")
		heartbeatChange(t, dir)
		before := revParse(t, dir, "HEAD")
		code, _, stderr := runSetupCLI(t, "commit", "--dir", dir, "--push", "--check-status")
		if code != exitUsage || !strings.Contains(stderr, "GITHUB_TOKEN") || revParse(t, dir, "HEAD") != before {
			t.Errorf("exit %d, stderr %q; want a usage error naming GITHUB_TOKEN and no commit", code, stderr)
		}
	})
}

// TestHeartbeatWorkflowSetsItsOwnStatusBeforePushing holds heartbeat.yml to
// what keeps a protected main taking its pushes: the commit step runs
// --check-status with the job's token, and the job may write statuses.
func TestHeartbeatWorkflowSetsItsOwnStatusBeforePushing(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "heartbeat.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []struct {
				Name, Run string
				Env       map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	job := wf.Jobs["heartbeat"]
	if job.Permissions["statuses"] != "write" {
		t.Errorf("the heartbeat job has statuses: %q, want write", job.Permissions["statuses"])
	}
	found := false
	for _, s := range job.Steps {
		if !strings.Contains(s.Run, " commit") || !strings.Contains(s.Run, "--push") {
			continue
		}
		found = true
		if !strings.Contains(s.Run, "--check-status") || s.Env["GITHUB_TOKEN"] != "${{ github.token }}" {
			t.Errorf("step %q pushes without --check-status and the job's token:\n%s", s.Name, s.Run)
		}
	}
	if !found {
		t.Error("heartbeat.yml has no step that runs meshnode commit --push")
	}
}
