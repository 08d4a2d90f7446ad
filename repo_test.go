// Package meshnode_test holds rules that span the whole repository. There
// is no package meshnode: the program is cmd/meshnode, and its parts are
// under internal/.
package meshnode_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citation matches a reference to a section of docs/protocol.md, such as
// "docs/protocol.md §6.5" or "§7.2" right after one.
var citation = regexp.MustCompile(`docs/protocol\.md §(\d+(?:\.\d+)?)`)

// outsideDoc matches references to specification files that live outside the
// repository: a fork has none of them, so code must cite docs/protocol.md.
var outsideDoc = regexp.MustCompile(`\bseed 00\d\b|\bseeds/|\bPROTOCOL\.md\b`)

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
