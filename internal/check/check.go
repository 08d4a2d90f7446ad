package check

import (
	"cmp"
	"fmt"
	"path"
	"slices"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// Options says which node to check, which files, and as whom.
type Options struct {
	// Dir holds the files to check: the pull request's tree, checked out
	// as data (never executed), or the node itself.
	Dir string
	// Base is the node as it is, whose MANIFEST.md, ledger and own
	// validations the files are judged against; empty means Dir. A pull
	// request's own copies of those files are never trusted: they are
	// what it could forge.
	Base string
	// Files are the changed files, as slash paths relative to Dir,
	// deleted ones included: every path a pull request touches is
	// checked, whatever its name. Empty: every file of the node.
	Files []string
	Agent string // our agent name (mesh.yaml agent)
	URL   string // our trace URL (mesh.yaml url)
	// Heartbeat says the change is the heartbeat's own commit, checked
	// before it moves the branch (meshnode commit --check-status): the
	// files only the heartbeat writes may change, and Base is Dir, the
	// node as the commit leaves it. Every other rule holds as for a pull
	// request.
	Heartbeat bool
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
// and message, each once. An empty result means the pull request changes
// only the node's data, every file of which passed.
func Check(o Options) []Problem {
	if o.Base == "" {
		o.Base = o.Dir
	}
	c := &checker{o: o}
	c.load()
	for _, f := range c.selected() {
		c.file(f)
	}
	c.reportReview()
	c.standing()
	slices.SortFunc(c.problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(c.problems)
}

// checker carries what the rules share: the base's ledger and MANIFEST
// rows, and the problems found.
type checker struct {
	o        Options
	base     *node.Snapshot // nil when the base does not open
	ledger   *ledger.Ledger
	rows     map[string]manifest.Entry  // our MANIFEST's rows by file
	own      map[manifest.Hash]bool     // hashes of files in our MANIFEST
	byHash   map[manifest.Hash][]string // trace hash → every validation file naming it
	vals     []string                   // checked validation files that parsed
	review   map[int][]string           // reviewKinds index → changed paths
	problems []Problem
}

func (c *checker) add(file string, line int, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: file, Line: max(line, 1), Message: fmt.Sprintf(format, args...)})
}

// selected returns the paths to check, sorted, each once: the changed
// files, or every file of the node in the directories a pull request may
// touch plus every published one.
func (c *checker) selected() []string {
	var out []string
	if len(c.o.Files) == 0 {
		out = c.all()
	}
	if c.o.Base == c.o.Dir {
		// Checking the node itself: every published file must still be
		// there, whatever the list names. (A pull request's tree may be
		// behind its base, so there only the files it changed count.)
		for f := range c.rows {
			out = append(out, f)
		}
	}
	for _, f := range c.o.Files {
		out = append(out, path.Clean(f))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// heartbeatOnly reports whether a path is written by the heartbeat alone,
// so a pull request that changes it would forge what the node verified
// (the ledger), what it published (MANIFEST.md, its archive pages, its
// signed log, disputes) or its state.
func heartbeatOnly(f string) bool {
	top, _, _ := cutTop(f)
	return f == node.ManifestFile || top == node.StateDir || top == node.DisputesDir || top == node.ArchiveDir || top == node.LogDir
}
