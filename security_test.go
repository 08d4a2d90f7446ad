package meshnode_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// pkgTests matches "pkg: `TestX`, `TestY`" in docs/security.md, up to the
// next "; " or cell end.
var pkgTests = regexp.MustCompile("(?:^|[|;] )([a-z][a-z/]*): ((?:`(?:Test|Fuzz|Benchmark)[A-Za-z0-9_]*`(?: \\([^)]*\\))?(?:, )?)+)")

// goIdent matches "`pkg.Identifier`" in docs/security.md: a package and a
// name with a capital in it, which tells it from a mesh.yaml key
// (`gossip.enabled`, `limits.trace_bytes`) or a file name (`mesh.yaml`).
var goIdent = regexp.MustCompile("`([a-z]+)\\.([A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*)`")

// TestSecurityPageNamesPackagesAndIdentifiersThatExist keeps
// docs/security.md honest about where things are: a test it names under
// a package is defined in that package, and a pkg.Identifier it names is
// a package of internal/ whose code still holds that name, so renaming a
// package or a limit fails here until the page is updated.
func TestSecurityPageNamesPackagesAndIdentifiersThatExist(t *testing.T) {
	page, err := os.ReadFile("docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	dirOf := func(pkg string) string {
		if strings.Contains(pkg, "/") {
			return pkg // cmd/meshnode
		}
		return "internal/" + pkg
	}
	tests, code := map[string]string{}, map[string]string{} // dir → its test files' text, its other files' text
	for path, text := range repoFiles(t, ".go") {
		dir := filepath.ToSlash(filepath.Dir(path))
		if strings.HasSuffix(path, "_test.go") {
			tests[dir] += text
		} else {
			code[dir] += text
		}
	}
	n := 0
	for _, m := range pkgTests.FindAllStringSubmatch(string(page), -1) {
		dir := dirOf(m[1])
		if _, ok := tests[dir]; !ok {
			t.Errorf("docs/security.md names tests of %s:, but %s has none (renamed?)", m[1], dir)
			continue
		}
		for _, name := range provedBy.FindAllStringSubmatch(m[2], -1) {
			n++
			if !regexp.MustCompile(`(?m)^func ` + name[1] + `\(`).MatchString(tests[dir]) {
				t.Errorf("docs/security.md names %s: %s, which %s does not define", m[1], name[1], dir)
			}
		}
	}
	if n < 20 {
		t.Fatalf("docs/security.md names %d tests under a package; the pattern no longer finds them", n)
	}
	ids := goIdent.FindAllStringSubmatch(string(page), -1)
	if len(ids) < 10 {
		t.Fatalf("docs/security.md names %d identifiers; the pattern no longer finds them", len(ids))
	}
	for _, m := range ids {
		src, ok := code[dirOf(m[1])]
		if !ok {
			t.Errorf("docs/security.md names %s.%s, but there is no package %s (renamed?)", m[1], m[2], dirOf(m[1]))
			continue
		}
		if !regexp.MustCompile(`\b` + m[2] + `\b`).MatchString(src) {
			t.Errorf("docs/security.md names %s.%s, which %s does not hold", m[1], m[2], dirOf(m[1]))
		}
	}
}
