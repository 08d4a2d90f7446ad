package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/meshnode/meshnode/internal/node"
)

// ownFiles lists the files the node may publish, as slash paths relative to
// dir, in seq order (the order of node.PublishedDirs, each by name), and
// the entries it holds back. Only regular files with a publishable name
// directly inside the three directories count (node.Publishable); hidden
// files (editor and atomicfile temporaries, .gitkeep) and subdirectories
// are ignored, and every other entry is held back with the reason, so a
// symbolic link, a traces/x.html or a name that would break a MANIFEST row
// is never published and the heartbeat says why.
func ownFiles(dir string) ([]string, []Held, error) {
	var out []string
	var held []Held
	for _, d := range node.PublishedDirs {
		if _, err := node.Stat(dir, d); errors.Is(err, node.ErrSymlink) {
			return nil, nil, fmt.Errorf("refusing to publish %w; make it a directory", err)
		}
		entries, err := os.ReadDir(filepath.Join(dir, d))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("list %s: %w", d, err)
		}
		var names []string
		for _, e := range entries {
			switch {
			case node.Publishable(e):
				names = append(names, e.Name())
			case node.Hidden(e.Name()) || e.IsDir():
			default:
				held = append(held, Held{File: path.Join(d, e.Name()), Reason: unpublishable(e)})
			}
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, path.Join(d, n))
		}
	}
	return out, held, nil
}

// linkedTopFiles holds back the node's top-level published files
// (IDENTITY.md, AGENTS.md, FOUNDERS.md) that are symbolic links: the site
// would ship the link's target, so meshnode build refuses them, and every
// heartbeat says so until a person replaces the link with the file.
func linkedTopFiles(dir string) []Held {
	var held []Held
	for _, f := range node.TopFiles {
		if f == node.ManifestFile {
			continue // rewritten by rename below: a link is replaced by the file
		}
		if _, err := node.Stat(dir, f); errors.Is(err, node.ErrSymlink) {
			held = append(held, Held{File: f, Reason: "a symbolic link: meshnode build refuses it, since the site would publish its target; replace it with the file itself"})
		}
	}
	return held
}

// unpublishable says why a directory entry is not published.
func unpublishable(e fs.DirEntry) string {
	if e.Type()&fs.ModeSymlink != 0 {
		return "a symbolic link: the node publishes only regular files; replace it with the file itself"
	}
	if !e.Type().IsRegular() {
		return "not a regular file"
	}
	return fmt.Sprintf("not a publishable name: %v; rename it", node.CheckName(e.Name()))
}

// kindOf tells what a published path holds by its directory.
func kindOf(file string) string {
	switch path.Dir(file) {
	case node.ValidationsDir:
		return node.ValidationsDir
	case node.DisputesDir:
		return node.DisputesDir
	default:
		return node.TracesDir
	}
}

// localPath turns a MANIFEST file column into a path under dir, refusing
// one that would leave it (a hand-edited MANIFEST is still input).
func localPath(dir, file string) (string, error) {
	p := filepath.FromSlash(file)
	if !filepath.IsLocal(p) {
		return "", fmt.Errorf("%s lists %q, which is not a path inside the node", node.ManifestFile, file)
	}
	return filepath.Join(dir, p), nil
}
