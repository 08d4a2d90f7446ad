package copies

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/meshnode/meshnode/internal/statefile"
)

// Stamp describes the copies named by path (Load's) without reading them:
// for an older node's single file and each file of the directory, its
// name, size and modification time in whole seconds, one line each,
// sorted. The copies are not committed (docs/decisions.md, "What the node
// commits"), so git cannot digest them as it does the history; the stamp
// stands for them in the quiet heartbeat's inputs instead. Whole seconds,
// because a restore from the Actions cache (tar) keeps no more; a copy
// added, taken down or lost with the cache changes a file's size or time,
// or the files there. Nothing there stamps as empty.
func Stamp(path string) ([]byte, error) {
	out, err := stampFile(path, filepath.Base(path))
	if err != nil {
		return nil, err
	}
	dir := statefile.Dir(path)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stamp copies: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	for _, name := range names {
		line, err := stampFile(filepath.Join(dir, name), filepath.Base(dir)+"/"+name)
		if err != nil {
			return nil, err
		}
		out = append(out, line...)
	}
	return out, nil
}

// stampFile is Stamp's line for the file at p, named name: nothing when
// there is no file.
func stampFile(p, name string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stamp copies: %w", err)
	}
	return fmt.Appendf(nil, "%q %s %d %d\n", name, fi.Mode().Type(), fi.Size(), fi.ModTime().Unix()), nil
}
