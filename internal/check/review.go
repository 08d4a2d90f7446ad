package check

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// ReviewDoc is where docs/github.md tells an owner how to merge a pull
// request the gate never passes.
const ReviewDoc = `docs/github.md, "A pull request that is not data"`

// reviewKind is a kind of path that is not node data, with what a change
// to such a path does. The gate checks only the node's data, so it never
// passes a pull request that touches one: a person must review it.
type reviewKind struct {
	what  string
	match func(f string) bool
}

// reviewKinds are tried in order; the last matches every path. Each kind
// is reported once per pull request, however many of its paths changed.
var reviewKinds = []reviewKind{
	{"changes how git stores, filters or ignores files (a `traces/** eol=crlf` line changes the bytes of published files in every fresh clone, and so every peer's hash of them)", gitControl},
	{"changes a GitHub workflow or setting under .github/ (what runs with the repository's token)", func(f string) bool {
		return f == ".github" || strings.HasPrefix(f, ".github/")
	}},
	{"changes the program's dependencies (a replace line in go.mod swaps the code that runs)", func(f string) bool {
		top, _, _ := cutTop(f)
		return f == "go.mod" || f == "go.sum" || f == "go.work" || f == "go.work.sum" || top == "vendor"
	}},
	{"changes the program's code, which decides whom the node trusts and what it publishes", func(f string) bool {
		top, _, _ := cutTop(f)
		return top == "cmd" || top == "internal" || strings.HasSuffix(f, ".go") || strings.HasSuffix(f, ".s")
	}},
	{"is not a file of the node's data (documentation, scripts, anything else the gate does not check)", func(string) bool { return true }},
}

// gitControl reports whether a path, in any directory, is one of git's
// own control files: they change what the repository's other files are.
func gitControl(f string) bool {
	switch path.Base(f) {
	case ".gitattributes", ".gitignore", ".gitmodules":
		return true
	}
	return false
}

// needsReview records a changed path the gate does not check.
func (c *checker) needsReview(f string) {
	for i, k := range reviewKinds {
		if k.match(f) {
			if c.review == nil {
				c.review = map[int][]string{}
			}
			c.review[i] = append(c.review[i], f)
			return
		}
	}
}

// maxNamed bounds the other paths of a kind named in its one problem.
const maxNamed = 3

// reportReview adds one problem per kind of path that needs a person, at
// the first such path, naming a few of the others.
func (c *checker) reportReview() {
	for i, k := range reviewKinds {
		files := c.review[i]
		if len(files) == 0 {
			continue
		}
		slices.Sort(files)
		files = slices.Compact(files)
		others := ""
		if n := len(files) - 1; n > 0 {
			named := files[1:min(len(files), 1+maxNamed)]
			others = fmt.Sprintf(" (with %d other path(s) of the kind: %s", n, strings.Join(quoteAll(named), ", "))
			if n > maxNamed {
				others += ", …"
			}
			others += ")"
		}
		c.add(files[0], 1, "not node data: it %s%s. The gate checks only the node's data and never passes this pull request; a person must review it and merge it by hand (%s)", k.what, others, ReviewDoc)
	}
}

// quoteAll quotes names that a newline or a control character could make
// pass for another line of output.
func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if strings.ContainsFunc(n, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			out[i] = fmt.Sprintf("%q", n)
		}
	}
	return out
}
