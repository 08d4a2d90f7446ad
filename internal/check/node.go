package check

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/meshnode/meshnode/internal/layout"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/validation"
)

// load reads the ledger and our MANIFEST.md. Either failing to load is a
// problem of its own: the rules that need it then find nothing known.
func (c *checker) load() {
	c.own = map[string]bool{}
	c.indexValidations()
	l, err := ledger.Load(filepath.Join(c.o.Dir, filepath.FromSlash(LedgerFile)))
	if err != nil {
		c.add(LedgerFile, 1, "does not load: %v", err)
		l = &ledger.Ledger{}
	}
	c.ledger = l
	data, err := os.ReadFile(filepath.Join(c.o.Dir, layout.ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		c.add(layout.ManifestFile, 1, "cannot read: %v", err)
		return
	}
	m, problems, err := manifest.Parse(data)
	if err != nil {
		c.add(layout.ManifestFile, 1, "does not parse: %v", err)
		return
	}
	for _, p := range problems {
		c.add(layout.ManifestFile, p.Line, "%s: every row is a published file and must parse", p.Reason)
	}
	for _, e := range m.Entries {
		c.own[e.Hash] = true
	}
}

// all lists every trace and validation of the node.
func (c *checker) all() []string {
	var out []string
	for _, d := range []string{layout.TracesDir, layout.ValidationsDir} {
		entries, err := os.ReadDir(filepath.Join(c.o.Dir, d))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.add(d, 1, "cannot list: %v", err)
		}
		for _, e := range entries {
			if layout.Publishable(e) {
				out = append(out, path.Join(d, e.Name()))
			}
		}
	}
	return out
}

func (c *checker) exists(f string) bool {
	fi, err := os.Stat(filepath.Join(c.o.Dir, filepath.FromSlash(f)))
	return err == nil && fi.Mode().IsRegular()
}

func (c *checker) read(f string) ([]byte, bool) {
	data, err := os.ReadFile(filepath.Join(c.o.Dir, filepath.FromSlash(f)))
	if err != nil {
		c.add(f, 1, "cannot read: %v", err)
		return nil, false
	}
	return data, true
}

// published reports every published file that was edited or deleted.
func (c *checker) published() {
	bad, err := publish.Verify(c.o.Dir)
	if err != nil {
		c.add(layout.ManifestFile, 1, "cannot verify published files: %v", err)
		return
	}
	for _, v := range bad {
		what := "was edited (published as " + v.PublishedHash + ", now " + v.CurrentHash + ")"
		if v.Deleted() {
			what = "was deleted (published as " + v.PublishedHash + ")"
		}
		c.add(v.File, 1, "published file %s; published files are immutable: %s", what, v.Fix())
	}
}

// indexValidations maps each trace hash to the validation files on disk
// that name it, so that a new file duplicating an old one is caught even
// when only the new one is given.
func (c *checker) indexValidations() {
	c.byHash = map[string][]string{}
	for _, f := range c.all() {
		if path.Dir(f) != layout.ValidationsDir {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.o.Dir, filepath.FromSlash(f)))
		if err != nil {
			continue // reported when the file itself is checked
		}
		if v, err := validation.Parse(data); err == nil && v.TraceHash != "" {
			c.byHash[v.TraceHash] = append(c.byHash[v.TraceHash], f)
		}
	}
}
