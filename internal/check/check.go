package check

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/layout"
	"github.com/meshnode/meshnode/internal/ledger"
)

// LedgerFile is where the heartbeat keeps what it verified of peers' files.
const LedgerFile = "mesh-state/ledger.json"

// Options says which node to check, which files, and as whom.
type Options struct {
	Dir string // the node's directory
	// Files are the changed files, as slash paths relative to Dir. Only
	// *.md files directly in traces/ and validations/ are checked; others
	// (README edits, deleted drafts) are ignored. Empty: every trace and
	// validation of the node.
	Files []string
	Agent string // our agent name (mesh.yaml agent)
	URL   string // our trace URL (mesh.yaml url)
}

// Problem is one thing wrong, at a file and line (1 when the whole file is
// at fault). File is a slash path relative to the node's directory.
type Problem struct {
	File    string
	Line    int
	Message string
}

// String formats the problem as FILE:LINE: message.
func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message) }

// Check applies every rule and returns the problems sorted by file, line
// and message. An empty result means the pull request may be merged.
func Check(o Options) []Problem {
	c := &checker{o: o}
	c.load()
	files := c.selected()
	for _, f := range files {
		switch path.Dir(f) {
		case layout.TracesDir:
			c.trace(f)
		case layout.ValidationsDir:
			c.validation(f)
		}
	}
	c.published()
	c.standing()
	slices.SortFunc(c.problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(c.problems)
}

// checker carries what the rules share: the ledger, our MANIFEST rows and
// the problems found.
type checker struct {
	o        Options
	ledger   *ledger.Ledger
	own      map[string]bool     // hashes of files in our MANIFEST
	byHash   map[string][]string // trace hash → every validation file naming it
	vals     []string            // checked validation files that parsed
	problems []Problem
}

func (c *checker) add(file string, line int, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: file, Line: max(line, 1), Message: fmt.Sprintf(format, args...)})
}

// selected returns the files to check, sorted, each once.
func (c *checker) selected() []string {
	if len(c.o.Files) == 0 {
		return c.all()
	}
	var out []string
	for _, f := range c.o.Files {
		f = filepath.ToSlash(filepath.Clean(f))
		d, name := path.Split(f)
		if (d == layout.TracesDir+"/" || d == layout.ValidationsDir+"/") &&
			strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, ".") && c.exists(f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
