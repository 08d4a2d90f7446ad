package check

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

// load opens the base once (node.Open) and indexes what the rules need
// of it: its ledger, its MANIFEST rows and its validations. A base that
// does not open, or a MANIFEST.md that does not parse, is a problem of its
// own: the rules that need it then find nothing known, so the check fails
// closed.
func (c *checker) load() {
	c.own = map[manifest.Hash]bool{}
	c.rows = map[string]manifest.Entry{}
	c.ledger = &ledger.Ledger{}
	snap, err := node.Open(c.o.Base, node.Options{})
	if err != nil {
		c.add(corruptFile(c.o.Base, err), 1, "the node does not open: %v", err)
	} else {
		c.base = snap
		c.ledger = snap.Ledger
		c.indexManifest()
	}
	c.indexValidations()
}

// corruptFile names the state file err is about, as a slash path relative
// to base, or the ledger when err names none.
func corruptFile(base string, err error) string {
	var ce *statefile.CorruptError
	if errors.As(err, &ce) {
		if rel, err := filepath.Rel(base, ce.Path); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return node.LedgerFile
}

func (c *checker) indexManifest() {
	if c.base.ManifestErr != nil {
		c.add(node.ManifestFile, 1, "%v", c.base.ManifestErr)
		return
	}
	for _, p := range c.base.ManifestProblems {
		c.add(node.ManifestFile, p.Line, "%s: every row is a published file and must parse", p.Reason)
	}
	if c.base.ArchiveErr != nil {
		c.add(node.ManifestFile, 1, "%v", c.base.ArchiveErr)
	}
	for _, e := range c.base.Rows() {
		c.own[e.Hash] = true
		if e.File != "" && filepath.IsLocal(filepath.FromSlash(e.File)) {
			c.rows[path.Clean(e.File)] = e
		}
	}
}

// indexValidations maps each trace hash to the validation files that name
// it, in the pull request's tree and in the base (less those the pull
// request deletes), so that a new file duplicating an old one is caught
// even when only the new one is given and the branch is behind its base.
// The base's come from its snapshot; the tree's are read here, unless the
// tree is the base.
func (c *checker) indexValidations() {
	c.byHash = map[manifest.Hash][]string{}
	seen := map[string]bool{}
	if c.o.Dir != c.o.Base {
		entries, _ := os.ReadDir(filepath.Join(c.o.Dir, node.ValidationsDir))
		for _, e := range entries {
			f := path.Join(node.ValidationsDir, e.Name())
			if !node.Publishable(e) {
				continue
			}
			data, err := node.ReadFile(c.o.Dir, f, node.MaxFileBytes)
			if err != nil {
				continue // reported when the file itself is checked
			}
			seen[f] = true
			c.indexValidation(f, data)
		}
	}
	if c.base == nil {
		return
	}
	for _, f := range c.base.Files(node.ValidationsDir) {
		if seen[f.Path] || f.Err != nil || c.o.Dir != c.o.Base && c.deleted(f.Path) {
			continue
		}
		c.indexValidation(f.Path, f.Data)
	}
}

func (c *checker) indexValidation(f string, data []byte) {
	if v, err := validation.Parse(data); err == nil && v.TraceHash != "" {
		c.byHash[v.TraceHash] = append(c.byHash[v.TraceHash], f)
	}
}

// deleted reports whether the pull request removed f.
func (c *checker) deleted(f string) bool {
	_, err := node.Stat(c.o.Dir, f)
	return errors.Is(err, fs.ErrNotExist)
}
