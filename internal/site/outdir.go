package site

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// existing is what a rebuild finds under out before it writes anything:
// one walk of the directory serves both the cache (an output whose key is
// unchanged is skipped only when its file is there) and the deletion of
// stale files, where a stat of each output cost as much again.
type existing struct {
	files map[string]bool // every entry but directories, by path relative to out (OS separators)
	dirs  []string        // every directory below out, parents first
}

// scanOut lists what is under out; an absent out holds nothing.
func scanOut(out string) (existing, error) {
	ex := existing{files: map[string]bool{}}
	out = filepath.Clean(out)
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := relativeTo(out, p)
		if err != nil {
			return err
		}
		switch {
		case !d.IsDir():
			ex.files[rel] = true
		case rel != ".":
			ex.dirs = append(ex.dirs, p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) && len(ex.files) == 0 && len(ex.dirs) == 0 {
		return ex, nil
	}
	if err != nil {
		return ex, fmt.Errorf("scan %s: %w", out, err)
	}
	return ex, nil
}

// relativeTo is p, found by walking the clean directory out, relative to
// out: the walk joins out and the names below it, so its prefix is cut
// off where filepath.Rel would clean both paths first.
func relativeTo(out, p string) (string, error) {
	prefix := out + string(filepath.Separator)
	switch {
	case p == out:
		return ".", nil
	case out == ".":
		return p, nil
	case strings.HasSuffix(out, string(filepath.Separator)):
		prefix = out // the root of the file system
	}
	if rel, ok := strings.CutPrefix(p, prefix); ok {
		return rel, nil
	}
	return filepath.Rel(out, p)
}

// has reports whether the output at slash path p was there before the
// build.
func (ex existing) has(p string) bool { return ex.files[filepath.FromSlash(p)] }

// removeStale deletes the files that were under out before the build
// (ex) and are not in outs, then the directories that became empty.
func removeStale(out string, outs []output, ex existing) (int, error) {
	keep := make(map[string]bool, len(outs)+1)
	keep[markerFile] = true
	for _, o := range outs {
		keep[filepath.FromSlash(o.Path)] = true
	}
	var stale []string
	for rel := range ex.files {
		if !keep[rel] {
			stale = append(stale, rel)
		}
	}
	for _, rel := range stale {
		if err := os.Remove(filepath.Join(out, rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("remove stale %s: %w", filepath.Join(out, rel), err)
		}
	}
	// Deepest first, so a parent is tried after its children; a directory
	// that still holds files refuses, which is what we want.
	for i := len(ex.dirs) - 1; i >= 0; i-- {
		_ = os.Remove(ex.dirs[i])
	}
	return len(stale), nil
}
