package site

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// markerFile marks a directory as a site this package owns: only such a
// directory (or an empty one) is written into, because Build deletes files
// it did not generate.
const markerFile = ".meshnode-site"

// claimOut makes sure out is empty, absent or a site of ours, so that
// deleting stale files can never eat someone's work (say, --out .). It
// reports whether out is fresh: absent, or empty but for stages an
// interrupted build left behind.
func claimOut(out string) (bool, error) {
	if fi, err := os.Stat(out); err == nil && !fi.IsDir() {
		return false, fmt.Errorf("refusing to build into %s: it is a file, %w", out, ErrNotSite)
	}
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w: %w", out, ErrOutUnusable, err)
	}
	fresh := true
	for _, e := range entries {
		fresh = fresh && isStage(e.Name())
	}
	if fresh {
		return true, nil
	}
	if _, err := os.Stat(filepath.Join(out, markerFile)); err != nil {
		return false, fmt.Errorf("refusing to build into %s: it is not empty and holds no %s, so it is %w", out, markerFile, ErrNotSite)
	}
	return false, nil
}

// removeStale deletes files under out that are not in outs, then the
// directories that became empty.
func removeStale(out string, outs []output) (int, error) {
	keep := make(map[string]bool, len(outs)+1)
	keep[markerFile] = true
	for _, o := range outs {
		keep[filepath.FromSlash(o.Path)] = true
	}
	var stale, dirs []string
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		if d.IsDir() {
			if rel != "." {
				dirs = append(dirs, p)
			}
			return nil
		}
		if !keep[rel] {
			stale = append(stale, p)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", out, err)
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return 0, fmt.Errorf("remove stale %s: %w", p, err)
		}
	}
	// Deepest first, so a parent is tried after its children; a directory
	// that still holds files refuses, which is what we want.
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
	return len(stale), nil
}
