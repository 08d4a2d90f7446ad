package meshnode_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// signStep is the one command a step given the log's signing key may run.
var signStep = regexp.MustCompile(`^"\$RUNNER_TEMP/meshnode" sign(\s+--[a-z-]+(=?[A-Za-z0-9._/-]+|\s+[A-Za-z0-9._/-]+)?)*$`)

// secretUses lists where a parsed workflow names a secret, as the path of
// mapping keys and sequence indexes to the value ("jobs", "heartbeat",
// "steps", "3", "env", "MESHNODE_LOG_KEY"), with the value; a key named
// secrets (a reusable workflow's "secrets: inherit") counts too.
func secretUses(n *yaml.Node, path []string, out *[][]string) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = append(slices.Clip(path), strconv.Itoa(i))
			}
			secretUses(c, p, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if k == "secrets" {
				*out = append(*out, append(slices.Clip(path), k, n.Content[i+1].Value))
			}
			secretUses(n.Content[i+1], append(slices.Clip(path), k), out)
		}
	case yaml.ScalarNode:
		if secretUse.MatchString(n.Value) {
			*out = append(*out, append(slices.Clip(path), n.Value))
		}
	}
}

// mapValue is the value of key in the mapping n; nil when there is none.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// TestOnlyTheSignStepHoldsTheLogKey: of every workflow, the log's signing
// key (and the new key of a rotation, docs/publishing.md "Rotating the
// key") is named in the env of one step of a workflow no pull request
// starts, and that step runs `meshnode sign` and nothing else: the
// heartbeat, which parses peers' files, never holds it (issue 23,
// docs/github.md "The log's signing key").
func TestOnlyTheSignStepHoldsTheLogKey(t *testing.T) {
	paths, err := filepath.Glob(".github/workflows/*.yml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no workflows: %v", err)
	}
	signers := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		problems, n := checkSecretUses(t, path, data)
		for _, p := range problems {
			t.Error(p)
		}
		signers += n
	}
	if signers != 1 {
		t.Errorf("%d steps hold the log's signing key, want 1 (the heartbeat's \"Sign the log\")", signers)
	}
}

// checkSecretUses says where the workflow names a secret other than the
// log key in a sign step's env, and counts those steps.
func checkSecretUses(t *testing.T, path string, data []byte) (problems []string, signers int) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	var uses [][]string
	secretUses(&doc, nil, &uses)
	signing := map[string]bool{}
	for _, u := range uses {
		where := strings.Join(u, ".")
		// jobs.JOB.steps.I.env.MESHNODE_LOG_KEY = ${{ secrets.MESHNODE_LOG_KEY }},
		// and the same of MESHNODE_NEW_LOG_KEY
		if len(u) != 7 || u[0] != "jobs" || u[2] != "steps" || u[4] != "env" || !logKeyVars[u[5]] ||
			strings.Join(strings.Fields(u[6]), "") != "${{secrets."+u[5]+"}}" {
			problems = append(problems, fmt.Sprintf("%s: %s: a secret named outside the sign step's env", path, where))
			continue
		}
		if runsForPullRequests(t, data) {
			problems = append(problems, fmt.Sprintf("%s: %s: a workflow that runs for pull requests holds the log's key", path, where))
		}
		var step *yaml.Node
		steps := mapValue(mapValue(mapValue(doc.Content[0], "jobs"), u[1]), "steps")
		if i, _ := strconv.Atoi(u[3]); steps != nil && i < len(steps.Content) {
			step = steps.Content[i]
		}
		run := mapValue(step, "run")
		if run == nil || mapValue(step, "uses") != nil || !signStep.MatchString(strings.TrimSpace(run.Value)) {
			problems = append(problems, fmt.Sprintf("%s: %s: the step given the log's key must run `meshnode sign` and nothing else", path, where))
			continue
		}
		signing[u[1]+"."+u[3]] = true
	}
	return problems, len(signing)
}

// logKeyVars are the environment variables a sign step may take from
// secrets of the same name: the log's key and a rotation's new key.
var logKeyVars = map[string]bool{"MESHNODE_LOG_KEY": true, "MESHNODE_NEW_LOG_KEY": true}

// TestSignStepGuardFindsTheKeyOutOfPlace: the guard above is only as good
// as what it refuses.
func TestSignStepGuardFindsTheKeyOutOfPlace(t *testing.T) {
	const key = "${{ secrets.MESHNODE_LOG_KEY }}"
	step := func(run string) string {
		return "on: [schedule]\njobs:\n  h:\n    steps:\n      - run: " + run + "\n        env:\n          MESHNODE_LOG_KEY: " + key + "\n"
	}
	for name, tt := range map[string]struct {
		workflow string
		problems int
		signers  int
	}{
		"the sign step":                   {step(`'"$RUNNER_TEMP/meshnode" sign'`), 0, 1},
		"the sign step with flags":        {step(`'"$RUNNER_TEMP/meshnode" sign --dir node'`), 0, 1},
		"the heartbeat step":              {step(`'"$RUNNER_TEMP/meshnode" heartbeat'`), 1, 0},
		"sign and more":                   {step(`'"$RUNNER_TEMP/meshnode" sign && curl x'`), 1, 0},
		"for pull requests":               {strings.Replace(step(`'"$RUNNER_TEMP/meshnode" sign'`), "schedule", "pull_request", 1), 1, 1},
		"the job's env":                   {"on: [schedule]\njobs:\n  h:\n    env:\n      MESHNODE_LOG_KEY: " + key + "\n", 1, 0},
		"another secret":                  {strings.Replace(step(`'"$RUNNER_TEMP/meshnode" sign'`), "secrets.MESHNODE_LOG_KEY", "secrets.OTHER", 1), 1, 0},
		"secrets: inherit":                {"on: [schedule]\njobs:\n  h:\n    uses: ./x.yml\n    secrets: inherit\n", 1, 0},
		"the sign step with the new key":  {step(`'"$RUNNER_TEMP/meshnode" sign'`) + "          MESHNODE_NEW_LOG_KEY: ${{ secrets.MESHNODE_NEW_LOG_KEY }}\n", 0, 1},
		"the new key in the heartbeat":    {step(`'"$RUNNER_TEMP/meshnode" heartbeat'`) + "          MESHNODE_NEW_LOG_KEY: ${{ secrets.MESHNODE_NEW_LOG_KEY }}\n", 2, 0},
		"the new key from another secret": {step(`'"$RUNNER_TEMP/meshnode" sign'`) + "          MESHNODE_NEW_LOG_KEY: ${{ secrets.MESHNODE_LOG_KEY }}\n", 1, 1},
	} {
		problems, signers := checkSecretUses(t, name, []byte(tt.workflow))
		if len(problems) != tt.problems || signers != tt.signers {
			t.Errorf("%s: %d problems %q, %d signers; want %d, %d", name, len(problems), problems, signers, tt.problems, tt.signers)
		}
	}
}
