// Package meshnode_test holds rules that span the whole repository. There
// is no package meshnode: the program is cmd/meshnode, and its parts are
// under internal/.
package meshnode_test

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
)

// citation matches a reference to a section of docs/protocol.md, such as
// "docs/protocol.md §6.5" or "§7.2" right after one.
var citation = regexp.MustCompile(`docs/protocol\.md §(\d+(?:\.\d+)?)`)

// outsideDoc matches references to specification files that live outside the
// repository: a fork has none of them, so code must cite docs/protocol.md.
var outsideDoc = regexp.MustCompile(`(?i:\bseed 00\d\b)|\bseeds/|\bPROTOCOL\.md\b`)

// TestSourcesCiteOnlyDocumentsInTheRepository keeps every comment's
// citation readable in a fork: it names docs/protocol.md, never the seed
// documents the protocol was first written in.
func TestSourcesCiteOnlyDocumentsInTheRepository(t *testing.T) {
	for path, text := range repoFiles(t, ".go", ".md", ".yml", ".yaml", ".sh") {
		if path == "docs/protocol.md" {
			continue
		}
		for i, line := range strings.Split(text, "\n") {
			if outsideDoc.MatchString(line) {
				t.Errorf("%s:%d cites a document outside the repository (cite docs/protocol.md by section instead): %s", path, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestProtocolCitationsNameExistingSections fails when a comment cites a
// section of docs/protocol.md that the page does not have, so renumbering the
// page cannot leave dangling references behind.
func TestProtocolCitationsNameExistingSections(t *testing.T) {
	sections := protocolSections(t)
	for path, text := range repoFiles(t, ".go", ".md", ".yml", ".yaml", ".sh") {
		for i, line := range strings.Split(text, "\n") {
			for _, m := range citation.FindAllStringSubmatch(line, -1) {
				if !sections[m[1]] {
					t.Errorf("%s:%d cites docs/protocol.md §%s, which does not exist", path, i+1, m[1])
				}
			}
		}
	}
}

// protocolSections returns the section numbers docs/protocol.md defines:
// "## 6. The polling loop" defines 6, "**6.5 Verify.**" defines 6.5.
func protocolSections(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`(?m)^## (\d+)\. `)
	sub := regexp.MustCompile(`\*\*(\d+\.\d+)[ *]`)
	found := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(string(data), -1) {
		found[m[1]] = true
	}
	for _, m := range sub.FindAllStringSubmatch(string(data), -1) {
		found[m[1]] = true
	}
	if len(found) < 10 {
		t.Fatalf("docs/protocol.md defines only %d sections; the parser no longer matches its headings", len(found))
	}
	return found
}

// repoFiles returns the text of the repository's own files with one of the
// given extensions, skipping git's directory, build output and testdata
// (fixtures may quote anything).
func repoFiles(t *testing.T, exts ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "_site", "testdata", "node_modules", "out", "artifacts":
				return filepath.SkipDir
			}
			return nil
		}
		for _, ext := range exts {
			if strings.HasSuffix(path, ext) {
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				files[filepath.ToSlash(path)] = string(data)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("found no files: run the test from the repository root")
	}
	return files
}

// usesLine matches a step's "uses:" in a workflow, with what follows it.
var usesLine = regexp.MustCompile(`^\s*(?:-\s+)?uses:\s*(.*)$`)

// pinnedUse is an action pinned to a full commit SHA, the version it is
// named in a comment: "actions/checkout@<40 hex> # v4.3.1".
var pinnedUse = regexp.MustCompile(`^[\w.-]+/[\w.-]+(?:/[\w./-]+)?@[0-9a-f]{40}\s+#\s*v\d+(?:\.\d+)*\s*$`)

// TestWorkflowActionsArePinnedToCommits: a tag can be moved to other code,
// a commit cannot. Every action a workflow uses is pinned to a full
// commit SHA with its version in a comment, which dependabot keeps current
// (.github/dependabot.yml). A local action (./path) is the repository's own.
func TestWorkflowActionsArePinnedToCommits(t *testing.T) {
	paths, err := filepath.Glob(".github/workflows/*.yml")
	if err != nil {
		t.Fatal(err)
	}
	uses := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range unpinnedUses(string(data)) {
			t.Errorf("%s:%s", path, problem)
		}
		uses += strings.Count(string(data), "uses:")
	}
	if uses == 0 {
		t.Fatalf("no 'uses:' in %v: the workflows moved or the test no longer reads them", paths)
	}
}

// unpinnedUses returns "LINE: problem" for every uses: in a workflow's text
// that is not pinned to a commit with a version comment.
func unpinnedUses(workflow string) []string {
	var problems []string
	for i, line := range strings.Split(workflow, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := usesLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[1], "./") {
			continue
		}
		if !pinnedUse.MatchString(m[1]) {
			problems = append(problems, fmt.Sprintf("%d: uses %q: pin it to a full commit SHA with the version in a comment (owner/repo@SHA # vX.Y.Z)", i+1, strings.TrimSpace(m[1])))
		}
	}
	return problems
}

// TestUnpinnedUsesFindsEveryKindOfLoosePin: a tag, a short or upper-case
// SHA, a SHA without its version and a docker image tag are each refused.
func TestUnpinnedUsesFindsEveryKindOfLoosePin(t *testing.T) {
	sha := strings.Repeat("ab12", 10)
	workflow := strings.Join([]string{
		"steps:",
		"  - uses: actions/checkout@" + sha + " # v4.3.1", // 2: pinned
		"  - uses: actions/setup-go@v5",                   // 3: a tag
		"  - uses: actions/checkout@" + sha,               // 4: no version comment
		"  - uses: actions/checkout@" + sha[:7] + " # v4", // 5: short SHA
		"  - uses: ./.github/actions/local",               // 6: the repository's own
		"    # uses: actions/cache@v4",                    // 7: a comment
		"  - name: deploy",
		"    uses: actions/deploy-pages@" + strings.ToUpper(sha) + " # v4.0.5", // 9: not a git SHA spelling
		"  - uses: docker://alpine:3",                                          // 10: a moving image tag
	}, "\n")
	var lines []string
	for _, p := range unpinnedUses(workflow) {
		lines = append(lines, p[:strings.Index(p, ":")])
	}
	if got, want := strings.Join(lines, ","), "3,4,5,9,10"; got != want {
		t.Errorf("unpinned lines = %s, want %s", got, want)
	}
}

// projectPaths are the top-level entries of the repository that are the
// program's, beside the node's own (node.Paths).
var projectPaths = []string{
	".ci", ".gitattributes", ".github", ".gitignore", "README.md", "bench", "cmd", "conformance", "docs",
	"go.mod", "go.sum", "internal", "node_names_test.go", "repo_test.go", "security_test.go", "workflow_cache_test.go", "workflow_secrets_test.go",
}

// TestRepositoryTracksNoStrayFiles fails when git tracks a top-level entry
// that is neither the program's nor the node's: a tool's output written
// into the checkout (once, 10,000 benchmark traces in a directory named
// -h) would otherwise ship to every fork.
func TestRepositoryTracksNoStrayFiles(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout, or no git: %v", err)
	}
	known := map[string]bool{}
	for _, p := range append(slices.Clone(projectPaths), node.Paths...) {
		known[p] = true
	}
	stray := map[string]bool{}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if top, _, _ := strings.Cut(f, "/"); f != "" && !known[top] {
			stray[top] = true
		}
	}
	for _, top := range slices.Sorted(maps.Keys(stray)) {
		t.Errorf("git tracks %q, which is neither the program's nor the node's: remove it, or add it to projectPaths", top)
	}
}

// slowTest matches a test that README's test command skips: its first
// statement is slowtest.Require(t).
var slowTest = regexp.MustCompile(`func (Test\w+)\(t \*testing\.T\) \{\n\tslowtest\.Require\(t\)\n`)

// TestREADMENamesEverySlowTest keeps README's list of the tests its test
// command skips true: each test that calls slowtest.Require, as its first
// statement, is named there, and .ci/run turns them on.
func TestREADMENamesEverySlowTest(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for path, text := range repoFiles(t, "_test.go") {
		if path == "repo_test.go" || strings.HasPrefix(path, "internal/slowtest/") {
			continue // they name the helper, and are not slow
		}
		matches := slowTest.FindAllStringSubmatch(text, -1)
		if calls := strings.Count(text, "slowtest.Require("); calls != len(matches) {
			t.Errorf("%s calls slowtest.Require %d times, %d of them as a test's first statement: make it the first, so README can name the test", path, calls, len(matches))
		}
		for _, m := range matches {
			found++
			if !strings.Contains(string(readme), "`"+m[1]+"`") {
				t.Errorf("%s: %s is skipped by README's test command, and README.md does not name it", path, m[1])
			}
		}
	}
	if found == 0 {
		t.Error("no test calls slowtest.Require: drop the slow-test paragraph from README.md")
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`MESHNODE_SLOW_TESTS=1 go test -race -count=1 -timeout \d+m \./\.\.\.`).Match(ci) {
		t.Error(".ci/run does not run every test, the slow ones included, under the race detector with an explicit -timeout")
	}
}
