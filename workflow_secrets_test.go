package meshnode_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// pullRequestEvents are the events that run a workflow for a pull request,
// or for a run a pull request started (workflow_run), so with text its
// author controls within reach.
var pullRequestEvents = map[string]bool{
	"pull_request": true, "pull_request_target": true, "pull_request_review": true,
	"pull_request_review_comment": true, "issue_comment": true, "workflow_run": true, "merge_group": true,
}

// secretUse is any way a workflow names a secret: secrets.X, secrets['X'],
// or a reusable workflow's "secrets: inherit".
var secretUse = regexp.MustCompile(`\bsecrets\s*(\.|\[)|^\s*secrets:\s*inherit\b`)

// TestNoPullRequestWorkflowNamesASecret: the log's signing key (issue 23)
// and any other secret stay out of every workflow a pull request can
// start: one that names none has none to leak, whatever a pull request's
// text makes its steps do.
func TestNoPullRequestWorkflowNamesASecret(t *testing.T) {
	paths, err := filepath.Glob(".github/workflows/*.yml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no workflows: %v", err)
	}
	checked := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !runsForPullRequests(t, data) {
			continue
		}
		checked++
		for _, line := range secretLines(string(data)) {
			t.Errorf("%s:%s: a workflow that runs for pull requests names a secret", path, line)
		}
	}
	if checked == 0 {
		t.Fatal("no workflow runs for pull requests: check.yml moved, or the test no longer reads the triggers")
	}
}

// runsForPullRequests reports whether a workflow's "on" names an event of
// pullRequestEvents, in any of its three spellings (a name, a list, a map).
func runsForPullRequests(t *testing.T, workflow []byte) bool {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(workflow, &doc); err != nil || len(doc.Content) == 0 {
		t.Fatalf("workflow does not parse: %v", err)
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "on" {
			continue
		}
		on := root.Content[i+1]
		switch on.Kind {
		case yaml.ScalarNode:
			return pullRequestEvents[on.Value]
		case yaml.SequenceNode:
			for _, e := range on.Content {
				if pullRequestEvents[e.Value] {
					return true
				}
			}
		case yaml.MappingNode:
			for j := 0; j < len(on.Content); j += 2 {
				if pullRequestEvents[on.Content[j].Value] {
					return true
				}
			}
		}
	}
	return false
}

// secretLines returns the numbers of the lines, comments aside, that name
// a secret.
func secretLines(workflow string) []string {
	var out []string
	for i, line := range strings.Split(workflow, "\n") {
		if code, _, _ := strings.Cut(line, "#"); secretUse.MatchString(code) {
			out = append(out, strconv.Itoa(i+1))
		}
	}
	return out
}

// TestSecretGuardFindsEveryWayToNameASecret: the guard above is only as
// good as what it recognizes.
func TestSecretGuardFindsEveryWayToNameASecret(t *testing.T) {
	triggers := map[string]bool{
		"on: pull_request_target\n":                      true,
		"on: [push, pull_request]\n":                     true,
		"on:\n  workflow_run:\n    workflows: [check]\n": true,
		"on:\n  issue_comment:\n":                        true,
		"on:\n  schedule:\n    - cron: '*/30 * * * *'\n": false,
		"on: [push, workflow_dispatch]\n":                false,
	}
	for text, want := range triggers {
		if got := runsForPullRequests(t, []byte(text+"jobs: {}\n")); got != want {
			t.Errorf("%q: runs for pull requests = %v, want %v", text, got, want)
		}
	}
	workflow := strings.Join([]string{
		"jobs:",
		"  a:",
		"    env:",
		"      KEY: ${{ secrets.MESHNODE_LOG_KEY }}", // 4
		"      OTHER: ${{ secrets['X'] }}",           // 5
		"    # secrets.IN_A_COMMENT",
		"  b:",
		"    uses: ./.github/workflows/x.yml",
		"    secrets: inherit", // 9
		"    with: {token: '${{ github.token }}'}",
	}, "\n")
	if got := strings.Join(secretLines(workflow), ","); got != "4,5,9" {
		t.Errorf("lines naming a secret = %s, want 4,5,9", got)
	}
}
