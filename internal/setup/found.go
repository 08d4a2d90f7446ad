package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signal"
)

// isSetUp reports whether dir is a node already: its mesh.yaml exists and
// is not the template's placeholder.
func isSetUp(dir string) (bool, error) {
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("check %s: %w", ConfigFile, err)
	}
	return !config.IsTemplate(data), nil
}

// foundMesh founds a mesh on a node that is set up already: it writes
// FOUNDERS.md naming the node as its mesh.yaml does, and nothing else,
// since the node's peers, identity, settings and published rows are the
// person's. A FOUNDERS.md that already names other founders is the
// declaration of a mesh the node joined: replacing it takes o.Force, and
// the old one is kept (keepCopy).
func foundMesh(o Options) (*Result, error) {
	cfg, err := config.Load(o.Dir)
	if err != nil {
		return nil, err
	}
	self, err := roster.NormalizeURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("%s: url: %w", ConfigFile, err)
	}
	if err := sameAsConfig(o, cfg.Agent, self); err != nil {
		return nil, err
	}
	res := &Result{Agent: cfg.Agent, URL: self, FoundedOnly: true}
	data := signal.FormatFounders(o.rules(), []signal.Founder{{Name: cfg.Agent, URL: self}})
	path := filepath.Join(o.Dir, node.FoundersFile)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, data):
		res.Unchanged = append(res.Unchanged, node.FoundersFile)
	case err == nil && !o.Force:
		return nil, &FoundersError{Dir: o.Dir, Founders: foundersOf(old)}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", node.FoundersFile, err)
	default:
		if err := keepCopy(o.Dir, node.FoundersFile, data, res); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", node.FoundersFile, err)
		}
		res.Written = append(res.Written, node.FoundersFile)
	}
	res.Founders, res.FoundersErr = signal.ReadFounders(o.Dir)
	return res, nil
}

// sameAsConfig refuses an --agent or --url that differs from mesh.yaml's:
// founding names the node as it is set up, and changes nothing else.
func sameAsConfig(o Options, agent, self string) error {
	if o.Agent != "" && o.Agent != agent {
		return &ValueError{Flag: "--agent", Err: fmt.Errorf("%q is not this node's name, %q in %s: founding a mesh changes nothing but FOUNDERS.md", o.Agent, agent, ConfigFile)}
	}
	if o.URL == "" {
		return nil
	}
	if u, err := roster.NormalizeURL(o.URL); err != nil || u != self {
		return &ValueError{Flag: "--url", Err: fmt.Errorf("%q is not this node's URL, %q in %s: founding a mesh changes nothing but FOUNDERS.md", o.URL, self, ConfigFile)}
	}
	return nil
}

// foundersOf names the founders a FOUNDERS.md declares, for a message.
func foundersOf(data []byte) string {
	d, err := signal.ParseFounders(data)
	if err != nil || len(d.Founders) == 0 {
		return "founders it does not list in a form this node reads"
	}
	names := make([]string, len(d.Founders))
	for i, f := range d.Founders {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// keepCopy saves what name holds as name.bak-N (the first N free) before
// init replaces it with data, and notes it in res.Kept: init never
// destroys what a person wrote. A file that is absent, the template's
// placeholder, or already data is not copied.
func keepCopy(dir, name string, data []byte, res *Result) error {
	old, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) || err == nil && (bytes.Equal(old, data) || config.IsTemplate(old)) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	for n := 1; ; n++ {
		bak := fmt.Sprintf("%s.bak-%d", name, n)
		_, err := os.Lstat(filepath.Join(dir, bak))
		if err == nil {
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check %s: %w", bak, err)
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, bak), old, 0o644); err != nil {
			return fmt.Errorf("keep a copy of %s: %w", name, err)
		}
		res.Kept = append(res.Kept, Kept{File: name, Copy: bak})
		return nil
	}
}
