package check

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestCheckNeverPassesWhatIsNotData: a change to any path that is not the
// node's data is a problem for a person, one per kind of path however many
// paths changed, so that a green check means data the gate fully checked.
func TestCheckNeverPassesWhatIsNotData(t *testing.T) {
	var code []string
	for i := range 40 {
		code = append(code, fmt.Sprintf("internal/x/f%02d.go", i))
	}
	tests := []struct {
		name  string
		files []string
		want  []string // each problem's start, in order
	}{
		{"a workflow", []string{".github/workflows/heartbeat.yml"},
			[]string{".github/workflows/heartbeat.yml:1: not node data: it changes a GitHub workflow"}},
		{"the founders in code", []string{"internal/signal/founders.go"},
			[]string{"internal/signal/founders.go:1: not node data: it changes the program's code"}},
		{"a replace line in go.mod", []string{"go.mod"},
			[]string{"go.mod:1: not node data: it changes the program's dependencies"}},
		{".gitattributes at the top", []string{".gitattributes"},
			[]string{".gitattributes:1: not node data: it changes how git stores, filters or ignores files"}},
		{".gitattributes inside traces/", []string{"traces/.gitattributes"},
			[]string{"traces/.gitattributes:1: not node data: it changes how git stores"}},
		{".gitignore inside validations/", []string{"validations/.gitignore"},
			[]string{"validations/.gitignore:1: not node data: it changes how git stores"}},
		{".gitattributes inside mesh-state/", []string{"mesh-state/.gitattributes"},
			[]string{"mesh-state/.gitattributes:1: not node data: it changes how git stores"}},
		{"a hidden file in traces/", []string{"traces/.hidden.md", "traces/.gitkeep"},
			[]string{"traces/.hidden.md:1: not node data: it is not a file of the node's data"}},
		{"a name that differs only in case", []string{"Traces/x.md", "MANIFEST.MD"},
			[]string{"MANIFEST.MD:1: not node data: it is not a file of the node's data (documentation, scripts, anything else the gate does not check) (with 1 other path(s) of the kind: Traces/x.md)"}},
		{"forty files of code are one problem", code,
			[]string{"internal/x/f00.go:1: not node data: it changes the program's code, which decides whom the node trusts and what it publishes (with 39 other path(s) of the kind: internal/x/f01.go, internal/x/f02.go, internal/x/f03.go, …)"}},
		{"each kind once, beside a good trace", append([]string{"README.md", "docs/x.md", "go.sum", ".github/dependabot.yml", "cmd/meshnode/main.go"}, "traces/2026-03-02-new.md"),
			[]string{".github/dependabot.yml:1: not node data: it changes a GitHub workflow", "README.md:1: not node data: it is not", "cmd/meshnode/main.go:1: not node data: it changes the program's code", "go.sum:1: not node data: it changes the program's dependencies"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := cleanNode(t)
			write(t, dir, "traces/.hidden.md", "# never published\n")
			write(t, dir, "traces/.gitkeep", "")
			ps := Check(options(dir, tt.files...))
			if len(ps) != len(tt.want) {
				t.Fatalf("%d problems, want %d:\n%s", len(ps), len(tt.want), strings.Join(lines(ps), "\n"))
			}
			for i, p := range ps {
				if !strings.HasPrefix(p.String(), tt.want[i]) {
					t.Errorf("problem %d:\n%s\nwant it to start\n%s", i, p, tt.want[i])
				}
				if !strings.Contains(p.Message, "a person must review it") {
					t.Errorf("problem %d does not say a person must review it: %s", i, p)
				}
			}
		})
	}
}

// TestCheckHoldsNodeFilesToPlainFiles: git keeps a mode with every file,
// and a change of mode alone is a change the gate must see: the node's
// data is never executable, a directory or a submodule.
func TestCheckHoldsNodeFilesToPlainFiles(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		file   string
		want   string
	}{
		{"a published trace made executable", func(t *testing.T, dir string) {
			chmod(t, dir, "traces/2026-03-01-polling-costs.md", 0o755)
		}, "traces/2026-03-01-polling-costs.md", "traces/2026-03-01-polling-costs.md:1: an executable file"},
		{"a new validation made executable", func(t *testing.T, dir string) {
			chmod(t, dir, "validations/"+validation.FileName(bobTrace), 0o755)
		}, "validations/" + validation.FileName(bobTrace), "validations/" + validation.FileName(bobTrace) + ":1: an executable file"},
		{"traces/ replaced by a file", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "traces")); err != nil {
				t.Fatal(err)
			}
			write(t, dir, "traces", "not a directory\n")
		}, "traces", "traces:1: the node keeps its files in the directory traces/"},
		{"IDENTITY.md replaced by a submodule's directory", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "IDENTITY.md"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "IDENTITY.md", "IDENTITY.md:1: a directory (or a submodule)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := cleanNode(t)
			tt.change(t, dir)
			ps := Check(options(dir, tt.file))
			if !slices.ContainsFunc(lines(ps), func(l string) bool { return strings.HasPrefix(l, tt.want) }) {
				t.Errorf("problems:\n%s\nwant one starting %q", strings.Join(lines(ps), "\n"), tt.want)
			}
		})
	}
}

func chmod(t *testing.T, dir, name string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(name)), mode); err != nil {
		t.Fatal(err)
	}
}

// TestAPullRequestChangingOnlyTheModeOfAHeartbeatsFileFails: a pull
// request that makes MANIFEST.md or a ledger file executable, its bytes
// as they were, changes what git records of a file only the heartbeat
// writes. On a1601b37 it passed, since only the bytes were compared.
func TestAPullRequestChangingOnlyTheModeOfAHeartbeatsFileFails(t *testing.T) {
	base := cleanNode(t)
	ledgerFiles, err := filepath.Glob(filepath.Join(base, "mesh-state", "ledger", "*"))
	if err != nil || len(ledgerFiles) == 0 {
		t.Fatalf("the clean node's ledger files: %v, %v", ledgerFiles, err)
	}
	ledgerFile, err := filepath.Rel(base, ledgerFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{node.ManifestFile, filepath.ToSlash(ledgerFile)} {
		t.Run(f, func(t *testing.T) {
			got := checkPR(t, base, f, func(pr string) { chmod(t, pr, f, 0o755) })
			if !strings.Contains(got, f+":1: written only by the heartbeat") {
				t.Errorf("a change of mode alone of %s passes:\n%s", f, got)
			}
			if got := checkPR(t, base, f, func(string) {}); got != "" {
				t.Errorf("%s named but unchanged fails:\n%s", f, got)
			}
		})
	}
}
