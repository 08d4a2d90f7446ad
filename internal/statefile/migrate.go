package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"sort"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// readFlatFiles reads the files per peer of the group i of l by key, a file
// of the current name winning over an older node's name of its key.
func readFlatFiles(l listing, i int) (map[string][]byte, error) {
	out := map[string][]byte{}
	names := slicesSortedByOld(l.dir, l.flat[i])
	for _, n := range names {
		p := filepath.Join(l.dir, n)
		data, err := readFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &CorruptError{Path: p, Err: err}
		}
		key, _ := keyOf(l.dir, n)
		out[key] = data
	}
	return out, nil
}

// slicesSortedByOld orders names so that an older node's name of a key
// comes before the current one, which is read last and so wins.
func slicesSortedByOld(dir string, names []string) []string {
	out := append([]string(nil), names...)
	sort.SliceStable(out, func(a, b int) bool {
		_, oa := keyOf(dir, out[a])
		_, ob := keyOf(dir, out[b])
		return oa && !ob
	})
	return out
}

// Migrate moves the files per peer of the split state named by path, as
// nodes before shards kept them (both name forms, flat.go), into their
// shards: it writes each shard that gains keys (a key already in the
// shard keeps the shard's content, written since, so newer), syncs the
// directory, then removes the files per peer. A crash at any point loses
// nothing: a key is in its file, its shard or both, and a shard wins on
// read; a rerun finishes the move. It reports whether it changed
// anything.
func Migrate(path string) (bool, error) {
	l, err := list(Dir(path))
	if err != nil {
		return false, fmt.Errorf("migrate %s: %w", path, err)
	}
	if len(l.flat) == 0 {
		return false, nil
	}
	var jobs []groupJob
	for top := range l.flat {
		flat, err := readFlatFiles(l, top)
		if err != nil {
			return false, fmt.Errorf("migrate %s: %w", path, err)
		}
		shard, err := (*Cache)(nil).groupContents(l, top)
		if err != nil {
			return false, fmt.Errorf("migrate %s: %w", path, err)
		}
		next := maps.Clone(flat)
		maps.Copy(next, shard)
		jobs = append(jobs, groupJob{top: top, exact: true, target: next})
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].top < jobs[b].top })
	if _, err := (*Cache)(nil).run(l, jobs); err != nil {
		return true, fmt.Errorf("migrate %s: %w", path, err)
	}
	return true, atomicfile.SyncDir(l.dir)
}
