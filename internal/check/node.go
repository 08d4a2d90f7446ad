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
	"github.com/meshnode/meshnode/internal/validation"
)

// load reads the base's ledger and MANIFEST.md, and indexes validations.
// Either failing to load is a problem of its own: the rules that need it
// then find nothing known.
func (c *checker) load() {
	c.own = map[string]bool{}
	c.rows = map[string]manifest.Entry{}
	l, err := ledger.Load(filepath.Join(c.o.Base, filepath.FromSlash(node.LedgerFile)))
	if err != nil {
		c.add(node.LedgerFile, 1, "does not load: %v", err)
		l = &ledger.Ledger{}
	}
	c.ledger = l
	c.loadManifest()
	c.indexValidations()
}

func (c *checker) loadManifest() {
	data, err := node.ReadFile(c.o.Base, node.ManifestFile, node.MaxTopFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		c.add(node.ManifestFile, 1, "cannot read: %v", err)
		return
	}
	m, problems, err := manifest.Parse(data)
	if err != nil {
		c.add(node.ManifestFile, 1, "does not parse: %v", err)
		return
	}
	for _, p := range problems {
		c.add(node.ManifestFile, p.Line, "%s: every row is a published file and must parse", p.Reason)
	}
	for _, e := range m.Entries {
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
func (c *checker) indexValidations() {
	c.byHash = map[string][]string{}
	seen := map[string]bool{}
	for _, root := range []string{c.o.Dir, c.o.Base} {
		entries, _ := os.ReadDir(filepath.Join(root, node.ValidationsDir))
		for _, e := range entries {
			f := path.Join(node.ValidationsDir, e.Name())
			if seen[f] || !node.Publishable(e) || root != c.o.Dir && c.deleted(f) {
				continue
			}
			seen[f] = true
			data, err := node.ReadFile(root, f, node.MaxFileBytes)
			if err != nil {
				continue // reported when the file itself is checked
			}
			if v, err := validation.Parse(data); err == nil && v.TraceHash != "" {
				c.byHash[v.TraceHash] = append(c.byHash[v.TraceHash], f)
			}
		}
	}
}

// deleted reports whether the pull request removed f.
func (c *checker) deleted(f string) bool {
	_, err := node.Stat(c.o.Dir, f)
	return errors.Is(err, fs.ErrNotExist)
}
