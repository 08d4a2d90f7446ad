package check

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
)

// archivedNode is cleanNode with eight more traces published with a
// window of 3 rows and pages of 2, so that MANIFEST.md links archive
// pages and the first trace is archived.
func archivedNode(t *testing.T) (string, manifest.Archive) {
	t.Helper()
	dir := cleanNode(t)
	for i := range 8 {
		write(t, dir, fmt.Sprintf("traces/2026-03-03-more-%d.md", i), fmt.Sprintf("# More %d\n\n## Work\n\nDone.\n", i))
	}
	if _, err := publish.Publish(publish.Options{Dir: dir, Agent: agent, URL: ourURL, Now: t0, Window: 3, Chunk: 2}); err != nil {
		t.Fatal(err)
	}
	s, err := node.Open(dir, node.Options{})
	if err != nil || s.ArchiveErr != nil || len(s.Manifest.Archives) == 0 {
		t.Fatalf("open: %v %v, %d pages", err, s.ArchiveErr, len(s.Manifest.Archives))
	}
	return dir, s.Manifest.Archives[0]
}

// prTree copies base to a pull request's tree.
func prTree(t *testing.T, base string) string {
	t.Helper()
	pr := filepath.Join(t.TempDir(), "pr")
	if out, err := exec.Command("cp", "-r", base, pr).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return pr
}

func TestCheckKeepsArchivePagesAndArchivedFilesTheNodes(t *testing.T) {
	base, page := archivedNode(t)
	if ps := Check(options(base)); len(ps) != 0 {
		t.Fatalf("the archived node has problems:\n%s", strings.Join(lines(ps), "\n"))
	}
	const archived = "traces/2026-03-01-polling-costs.md" // seq 1: in the first page
	tests := []struct {
		name   string
		change func(t *testing.T, pr string) string
		want   string
	}{
		{"edited page", func(t *testing.T, pr string) string {
			write(t, pr, page.File, "# MANIFEST\n\nsequence: 2\n")
			return page.File
		}, page.File + ":1: written only by the heartbeat"},
		{"new page", func(t *testing.T, pr string) string {
			f := node.ArchivePage(900, 901)
			write(t, pr, f, "# MANIFEST\n\nsequence: 901\n")
			return f
		}, node.ArchivePage(900, 901) + ":1: written only by the heartbeat"},
		{"deleted page", func(t *testing.T, pr string) string {
			if err := os.Remove(filepath.Join(pr, page.File)); err != nil {
				t.Fatal(err)
			}
			return page.File
		}, page.File + ":1: written only by the heartbeat"},
		{"edited archived file", func(t *testing.T, pr string) string {
			write(t, pr, archived, ownTraceBytes+"typo fixed\n")
			return archived
		}, archived + ":1: published file was edited"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr := prTree(t, base)
			f := tt.change(t, pr)
			got := lines(Check(Options{Dir: pr, Base: base, Files: []string{f}, Agent: agent, URL: ourURL}))
			if len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
				t.Errorf("got %q\nwant one problem starting %q", got, tt.want)
			}
		})
	}
}
