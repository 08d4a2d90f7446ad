package meshnode_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// workflowStep is what TestHeartbeatWorkflowKeepsTheCopiesInTheCache
// reads of a step.
type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
}

// TestHeartbeatWorkflowKeepsTheCopiesInTheCache: the copies of peers'
// traces are never committed (docs/decisions.md, "What the node
// commits"), so the heartbeat job restores them from the Actions cache
// before the heartbeat and saves them after its commit when they changed,
// and the build job restores them before it builds the site, which
// republishes them; .gitignore keeps them out of a fork's commits.
func TestHeartbeatWorkflowKeepsTheCopiesInTheCache(t *testing.T) {
	data, err := os.ReadFile(".github/workflows/heartbeat.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Jobs map[string]struct {
			Steps []workflowStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	dir := statefile.Dir(node.CopiesFile)
	restores := func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/cache/restore@") }
	saves := func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/cache/save@") }
	hb := w.Jobs["heartbeat"].Steps
	restore := wantStepBefore(t, "heartbeat", hb, restores, "Heartbeat")
	save := wantStepAfter(t, "heartbeat", hb, saves, "Commit and push")
	build := wantStepBefore(t, "build", w.Jobs["build"].Steps, restores, "Build the site")
	prefix := restore.With["restore-keys"]
	for _, s := range []workflowStep{restore, save, build} {
		if s.With["path"] != dir {
			t.Errorf("step %q caches %q, want %q", s.Name, s.With["path"], dir)
		}
	}
	if prefix == "" || build.With["restore-keys"] != prefix || !strings.HasPrefix(save.With["key"], prefix) {
		t.Errorf("restore keys %q and %q, save key %q: want the save's key to start with the restores' prefix",
			prefix, build.With["restore-keys"], save.With["key"])
	}
	digest := "hashFiles('" + dir + "/**')"
	if !strings.Contains(save.With["key"], digest) || !strings.Contains(save.If, digest) || !strings.Contains(save.If, "cache-matched-key") {
		t.Errorf("save step: key %q, if %q; want a key from %s, saved only when it differs from the store restored", save.With["key"], save.If, digest)
	}
	ignore, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ignore), "\n")
	for _, p := range []string{"/" + dir + "/", "/" + node.CopiesFile} {
		if !slices.Contains(lines, p) {
			t.Errorf(".gitignore does not list %s", p)
		}
	}
}

// wantStepBefore returns the step of job that is, and comes before the
// step named next.
func wantStepBefore(t *testing.T, job string, steps []workflowStep, is func(workflowStep) bool, next string) workflowStep {
	t.Helper()
	i, j := slices.IndexFunc(steps, is), slices.IndexFunc(steps, func(s workflowStep) bool { return s.Name == next })
	if i < 0 || j < 0 || i > j {
		t.Fatalf("job %s: the cache step at %d, %q at %d: want it before", job, i, next, j)
	}
	return steps[i]
}

// wantStepAfter returns the step of job that is, and comes after the step
// named prev.
func wantStepAfter(t *testing.T, job string, steps []workflowStep, is func(workflowStep) bool, prev string) workflowStep {
	t.Helper()
	i, j := slices.IndexFunc(steps, is), slices.IndexFunc(steps, func(s workflowStep) bool { return s.Name == prev })
	if i < 0 || j < 0 || i < j {
		t.Fatalf("job %s: the cache step at %d, %q at %d: want it after", job, i, prev, j)
	}
	return steps[i]
}
