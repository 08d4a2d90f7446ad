package meshnode_test

import (
	"os"
	"regexp"
	"testing"
)

// provedBy matches a test named in docs/security.md: "pkg: `TestX`" or a
// further "`FuzzY`" in the same cell.
var provedBy = regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)`")

// TestSecurityPageNamesTestsThatExist keeps docs/security.md honest: every
// test it says proves a line must exist, so renaming or deleting one fails
// here until the page is updated.
func TestSecurityPageNamesTestsThatExist(t *testing.T) {
	page, err := os.ReadFile("docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]*)\(`)
	for _, text := range repoFiles(t, "_test.go") {
		for _, m := range decl.FindAllStringSubmatch(text, -1) {
			defined[m[1]] = true
		}
	}
	names := provedBy.FindAllStringSubmatch(string(page), -1)
	if len(names) < 20 {
		t.Fatalf("docs/security.md names %d tests; the pattern no longer finds them", len(names))
	}
	for _, m := range names {
		if !defined[m[1]] {
			t.Errorf("docs/security.md names %s, which no test file defines", m[1])
		}
	}
}
