package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// workflowStep is one step of a workflow, as far as the gate's rules read it.
type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Dir  string            `yaml:"working-directory"`
	With map[string]string `yaml:"with"`
}

// checkWorkflow is check.yml as the gate's rules read it.
type checkWorkflow struct {
	On          map[string]any `yaml:"on"`
	Permissions any            `yaml:"permissions"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Steps       []workflowStep    `yaml:"steps"`
	} `yaml:"jobs"`
}

// prCommands are the only programs a step may run inside the pull
// request's checkout: git to list what changed, bash builtins, and the
// meshnode built from the base. Nothing of the pull request is executed.
var prCommands = []string{"set", "base=$(git", "git", "mapfile", "echo", `"$MESHNODE"`}

// TestCheckWorkflowKeepsThePullRequestAsData holds check.yml to the rules
// that make the gate bind a hostile pull request (docs/security.md, "A pull
// request's author"): the trigger takes the workflow from the base, the
// token is minimal, no credentials are left on disk, meshnode is built from
// the base checkout only, the pull request's checkout is never executed,
// no step writes a cache the heartbeat would restore (no actions/cache,
// setup-go's cache off), and every action is pinned to a commit.
func TestCheckWorkflowKeepsThePullRequestAsData(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "check.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range workflowProblems(data) {
		t.Error(p)
	}
	// Each rule catches the change that breaks it.
	for _, tt := range []struct{ name, old, new, want string }{
		{"pull_request", "pull_request_target:", "pull_request:", "not triggered by pull_request_target"},
		{"write-all", "permissions: {}", "permissions: write-all", "top-level permissions"},
		{"contents: write", "contents: read", "contents: write", "the job's token has contents: write"},
		{"credentials kept", "persist-credentials: false", "persist-credentials: true", "leaves credentials on disk"},
		{"built from the pull request", "working-directory: base\n", "working-directory: pr\n", "builds in \"pr\""},
		{"the pull request's script run", `"$MESHNODE" check`, `bash ./ci.sh; "$MESHNODE" check`, "nothing of the pull request's checkout may be executed"},
		{"make in the pull request", "mapfile -d", "make check; mapfile -d", "only"},
		{"an action on a tag", "actions/setup-go@40f1582b2485089dde7abd97c1529aa768e1baff # v5.6.0", "actions/setup-go@v5", "not pinned"},
		{"no version comment", "actions/setup-go@40f1582b2485089dde7abd97c1529aa768e1baff # v5.6.0", "actions/setup-go@40f1582b2485089dde7abd97c1529aa768e1baff", "not pinned"},
		{"setup-go's cache", "cache: false", "cache: true", "writes a cache"},
		{"an actions/cache step in another job", "jobs:\n", "jobs:\n  warm:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n        with:\n          path: mesh-state/copies\n          key: x\n", "job warm: step"},
		{"an actions/cache step", "      - uses: actions/setup-go@", "      - uses: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n        with:\n          path: mesh-state/copies\n          key: x\n      - uses: actions/setup-go@", "writes a cache"},
	} {
		broken := strings.Replace(string(data), tt.old, tt.new, 1)
		if broken == string(data) {
			t.Errorf("%s: check.yml holds no %q to change", tt.name, tt.old)
			continue
		}
		if ps := workflowProblems([]byte(broken)); !slices.ContainsFunc(ps, func(p string) bool { return strings.Contains(p, tt.want) }) {
			t.Errorf("%s: no problem containing %q in %q", tt.name, tt.want, ps)
		}
	}
}

// workflowProblems returns every way the workflow data breaks the gate's
// rules.
func workflowProblems(data []byte) []string {
	var out []string
	errorf := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	var wf checkWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return []string{err.Error()}
	}
	if _, ok := wf.On["pull_request_target"]; !ok {
		errorf("check.yml is not triggered by pull_request_target: GitHub would take the workflow from the pull request")
	}
	if _, ok := wf.On["pull_request"]; ok {
		errorf("check.yml is triggered by pull_request: the pull request's own workflow and code would run")
	}
	if p, ok := wf.Permissions.(map[string]any); !ok || len(p) != 0 {
		errorf("top-level permissions are %v, want {}", wf.Permissions)
	}
	allowed := map[string]string{"contents": "read", "pull-requests": "read", "statuses": "write"}
	job, ok := wf.Jobs["check"]
	if !ok {
		return append(out, "check.yml has no job check")
	}
	for k, v := range job.Permissions {
		if allowed[k] != v {
			errorf("the job's token has %s: %s; it may have only %v", k, v, allowed)
		}
	}

	var base, pr string // the checkouts' paths
	for _, s := range job.Steps {
		if !strings.HasPrefix(s.Uses, "actions/checkout@") {
			continue
		}
		if s.With["persist-credentials"] != "false" {
			errorf("checkout %q leaves credentials on disk: want persist-credentials: false", s.Name)
		}
		switch {
		case s.With["ref"] == "" && base == "":
			base = s.With["path"]
		case s.With["ref"] != "":
			pr = s.With["path"]
		}
	}
	if base == "" || pr == "" || base == pr {
		return append(out, fmt.Sprintf("want a base checkout and a pull request checkout in two paths, got base %q, pr %q", base, pr))
	}

	built := false
	for _, s := range job.Steps {
		if s.Run == "" {
			continue
		}
		if strings.Contains(s.Run, "go build") || strings.Contains(s.Run, "go run") || strings.Contains(s.Run, "go install") {
			if s.Dir != base {
				errorf("step %q builds in %q, want the base checkout %q", s.Name, s.Dir, base)
			}
			built = built || strings.Contains(s.Run, "./cmd/meshnode")
		}
		for _, word := range []string{pr + "/", "source ", "bash ", "sh ", "make", "npm", "./"} {
			if strings.Contains(s.Run, word) && !(word == "./" && s.Dir == base && strings.Contains(s.Run, "./cmd/meshnode")) {
				errorf("step %q runs %q: nothing of the pull request's checkout may be executed", s.Name, word)
			}
		}
		if s.Dir != pr {
			continue
		}
		for _, line := range strings.Split(s.Run, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			first, _, _ := strings.Cut(line, " ")
			if !slices.Contains(prCommands, first) {
				errorf("step %q runs %q in the pull request's checkout; only %v may run there", s.Name, line, prCommands)
			}
		}
	}
	if !built {
		errorf("no step builds meshnode from the base checkout")
	}
	// Every job of the workflow, not the check job alone: a cache any of
	// them writes is the base branch's.
	for _, name := range slices.Sorted(maps.Keys(wf.Jobs)) {
		for _, s := range wf.Jobs[name].Steps {
			if strings.HasPrefix(s.Uses, "actions/cache") || strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["cache"] != "false" {
				errorf("job %s: step %q writes a cache: a pull_request_target run writes the base branch's cache, which the heartbeat restores (the copies of peers' traces, Go's modules)", name, s.Uses)
			}
		}
	}

	usesLine := regexp.MustCompile(`^\s*(?:-\s+)?uses:`)
	pinned := regexp.MustCompile(`^\s*(?:-\s+)?uses:\s+[\w.-]+/[\w./-]+@[0-9a-f]{40}\s+#\s+v\d+(\.\d+)*\s*$`)
	for i, line := range strings.Split(string(data), "\n") {
		if usesLine.MatchString(line) && !pinned.MatchString(line) {
			errorf("check.yml:%d: %q is not pinned to a 40-hex commit with a version comment", i+1, strings.TrimSpace(line))
		}
	}
	return out
}
