package node

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/translog"
)

// maxLogFileBytes bounds a file of the log: a full entry bundle of 256
// entries of at most translog.MaxEntryBytes each.
const maxLogFileBytes = 256 * (translog.MaxEntryBytes + 2)

// ReadLog reads the files of the node's log, by slash path under LogDir
// (translog's names: "checkpoint", "tile/0/000"…); empty when there is
// none. A symbolic link or a file too large for the log is an error.
func ReadLog(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", LogDir, err)
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), LogDir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == LogDir:
			return fs.SkipAll
		case err != nil:
			return err
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is %w", p, ErrSymlink)
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: %w", p, ErrNotRegular)
		}
		data, err := ReadFile(dir, p, maxLogFileBytes)
		if err != nil {
			return err
		}
		out[p[len(LogDir)+1:]] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", LogDir, err)
	}
	return out, nil
}

// WriteLog makes the node's log hold exactly files (by path under LogDir,
// as ReadLog gives them): the tiles first, each only when its bytes
// differ, then the checkpoint, so a crash never leaves a checkpoint whose
// tiles are not there; then it removes the files the log no longer has
// (the partial tiles a grown tree replaced). It reports whether anything
// changed.
func WriteLog(dir string, old, files map[string][]byte) (bool, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		if name != translog.CheckpointFile {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if _, ok := files[translog.CheckpointFile]; ok {
		names = append(names, translog.CheckpointFile)
	}
	changed := false
	for _, name := range names {
		if data, ok := old[name]; ok && bytes.Equal(data, files[name]) {
			continue
		}
		p := filepath.Join(dir, LogDir, filepath.FromSlash(name))
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return changed, fmt.Errorf("write %s: not a path inside the log", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return changed, fmt.Errorf("write %s: %w", path.Join(LogDir, name), err)
		}
		if err := atomicfile.WriteFile(p, files[name], 0o644); err != nil {
			return changed, fmt.Errorf("write %s: %w", path.Join(LogDir, name), err)
		}
		changed = true
	}
	for name := range old {
		if _, ok := files[name]; ok {
			continue
		}
		p := filepath.Join(dir, LogDir, filepath.FromSlash(name))
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return changed, fmt.Errorf("remove %s: %w", path.Join(LogDir, name), err)
		}
		os.Remove(filepath.Dir(p)) // the .p/ directory of a partial tile, once empty
		changed = true
	}
	return changed, nil
}
