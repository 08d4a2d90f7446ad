package meshnode_test

import (
	"os"
	"os/exec"
	"path/filepath"
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
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	If   string            `yaml:"if"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

// workflowJob is what the test reads of a job.
type workflowJob struct {
	Outputs map[string]string `yaml:"outputs"`
	Steps   []workflowStep    `yaml:"steps"`
}

// TestHeartbeatWorkflowKeepsTheCopiesInTheCache: the copies of peers'
// traces are never committed (docs/decisions.md, "What the node
// commits"), so the heartbeat job restores the newest store before the
// heartbeat, warns when there is none, names the store it leaves after
// its commit (an empty one too) and saves it when it differs from the
// one restored; the build job restores exactly that store before it
// builds the site and warns when it is missing.
func TestHeartbeatWorkflowKeepsTheCopiesInTheCache(t *testing.T) {
	data, err := os.ReadFile(".github/workflows/heartbeat.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Jobs map[string]workflowJob `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	dir := statefile.Dir(node.CopiesFile)
	hb, build := w.Jobs["heartbeat"], w.Jobs["build"]
	order := func(job string, steps []workflowStep, names ...string) []workflowStep {
		t.Helper()
		var out []workflowStep
		last := -1
		for _, n := range names {
			i := slices.IndexFunc(steps, func(s workflowStep) bool { return s.Name == n })
			if i <= last {
				t.Fatalf("job %s: step %q at %d, want it after %d (order %q)", job, n, i, last, names)
			}
			last = i
			out = append(out, steps[i])
		}
		return out
	}
	s := order("heartbeat", hb.Steps, "Restore the copies of peers' traces", "Say when no copies were restored", "Heartbeat", "Commit and push", "Name the store of copies", "Save the copies of peers' traces")
	restore, warn, store, save := s[0], s[1], s[4], s[5]
	b := order("build", build.Steps, "Restore the copies of peers' traces", "Say when the copies are missing", "Build the site")
	bRestore, bWarn := b[0], b[1]

	for _, c := range []struct{ what, got, want string }{
		{"heartbeat restore uses", restore.Uses[:min(len(restore.Uses), 22)], "actions/cache/restore@"},
		{"heartbeat restore-keys", restore.With["restore-keys"], "meshnode-copies-"},
		{"heartbeat warning if", warn.If, "steps." + restore.ID + ".outputs.cache-matched-key == ''"},
		{"store step matched", store.Env["MATCHED"], "${{ steps." + restore.ID + ".outputs.cache-matched-key }}"},
		{"store step digest", store.Env["DIGEST"], "${{ hashFiles('" + dir + "/**') || 'empty' }}"},
		{"save uses", save.Uses[:min(len(save.Uses), 19)], "actions/cache/save@"},
		{"save if", save.If, "steps." + store.ID + ".outputs.save == 'true'"},
		{"save key", save.With["key"], "${{ steps." + store.ID + ".outputs.key }}"},
		{"heartbeat output copies-key", hb.Outputs["copies-key"], "${{ steps." + store.ID + ".outputs.key }}"},
		{"build restore key", bRestore.With["key"], "${{ needs.heartbeat.outputs.copies-key }}"},
		{"build restore-keys", bRestore.With["restore-keys"], ""},
		{"build warning if", bWarn.If, "steps." + bRestore.ID + ".outputs.cache-hit != 'true'"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
		}
	}
	for _, st := range []workflowStep{restore, save, bRestore} {
		if st.With["path"] != dir {
			t.Errorf("step %q caches %q, want %q", st.Name, st.With["path"], dir)
		}
	}
	for _, st := range []workflowStep{warn, bWarn} {
		if !strings.Contains(st.Run, "::warning") {
			t.Errorf("step %q runs %q, want a ::warning", st.Name, st.Run)
		}
	}
	wantStoreStep(t, store, dir)
}

// wantStoreStep runs the store step's script as Actions would, with the
// digest of the copies and the key restored, and checks the key it names
// and whether it saves.
func wantStoreStep(t *testing.T, store workflowStep, dir string) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	for _, tc := range []struct {
		name, digest, matched, key, save string
	}{
		{"nothing restored", "abc", "", "meshnode-copies-abc-7-1", "true"},
		{"the store restored, unchanged", "abc", "meshnode-copies-abc-5-1", "meshnode-copies-abc-5-1", "false"},
		{"the store changed", "def", "meshnode-copies-abc-5-1", "meshnode-copies-def-7-1", "true"},
		{"the store emptied", "empty", "meshnode-copies-abc-5-1", "meshnode-copies-empty-7-1", "true"},
		{"the empty store restored", "empty", "meshnode-copies-empty-5-1", "meshnode-copies-empty-5-1", "false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			out := filepath.Join(work, "output")
			cmd := exec.Command("bash", "-e", "-c", store.Run)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "DIGEST="+tc.digest, "MATCHED="+tc.matched, "RUN=7-1", "GITHUB_OUTPUT="+out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the store step: %v\n%s", err, b)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if want := "key=" + tc.key + "\nsave=" + tc.save + "\n"; string(got) != want {
				t.Errorf("outputs %q, want %q", got, want)
			}
			if fi, err := os.Stat(filepath.Join(work, dir)); err != nil || !fi.IsDir() {
				t.Errorf("no directory %s to save: %v", dir, err)
			}
		})
	}
}

// TestGitIgnoresTheCopies: .gitignore keeps the copies out of a fork's
// commits, a symlink named as their directory too.
func TestGitIgnoresTheCopies(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ignore, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), ignore, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := statefile.Dir(node.CopiesFile)
	if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(repo, dir)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "--quiet"}, {"check-ignore", "--quiet", "--no-index", "--", node.CopiesFile}, {"check-ignore", "--quiet", "--no-index", "--", dir}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
}
