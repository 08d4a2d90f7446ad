package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// WriteSome writes files into the split state named by path and removes
// the keys named in gone, leaving its other keys as they are: a caller
// that knows which peers' records changed rewrites their shards only. A
// name in both files and gone is written, never removed. It reports
// whether anything on disk changed.
func WriteSome(path string, files map[string][]byte, gone []string) (bool, error) {
	return Update(path, files, nil, gone)
}

// Update is WriteSome for a caller that holds the bytes it last read or
// wrote of each key (was, as Rewrite takes them): a shard in which every
// key of files equals was[key], and none is gone, is left alone without
// being opened again.
func Update(path string, files, was map[string][]byte, gone []string) (bool, error) {
	return (*Cache)(nil).Update(path, files, was, gone)
}

// Update is statefile.Update that keeps in c what it writes, and forgets
// what it removes.
func (c *Cache) Update(path string, files, was map[string][]byte, gone []string) (bool, error) {
	sets, gones, err := touched(files, was, gone)
	if err != nil || len(sets)+len(gones) == 0 {
		return false, err
	}
	shards := make([]int, 0, len(sets)+len(gones))
	for i := range Shards {
		if sets[i] != nil || gones[i] != nil {
			shards = append(shards, i)
		}
	}
	dir := Dir(path)
	var changed atomic.Bool
	var g errgroup.Group
	g.SetLimit(writeParallel)
	for _, i := range shards {
		g.Go(func() error {
			did, err := c.updateShard(dir, i, sets[i], gones[i])
			if did {
				changed.Store(true)
			}
			return err
		})
	}
	err = g.Wait()
	return changed.Load(), err
}

// touched returns, by shard, the keys of files whose bytes differ from
// was's and the keys of gone not in files.
func touched(files, was map[string][]byte, gone []string) (map[int]map[string][]byte, map[int][]string, error) {
	sets, gones := map[int]map[string][]byte{}, map[int][]string{}
	for _, name := range gone {
		if !validKey(name) {
			return nil, nil, fmt.Errorf("remove %s: not a state file name", name)
		}
		if _, written := files[name]; !written {
			gones[shardOf(name)] = append(gones[shardOf(name)], name)
		}
	}
	for name, data := range files {
		if !validKey(name) {
			return nil, nil, fmt.Errorf("write %s: not a state file name", name)
		}
		if old, ok := was[name]; ok && bytes.Equal(old, data) {
			continue
		}
		i := shardOf(name)
		if sets[i] == nil {
			sets[i] = map[string][]byte{}
		}
		sets[i][name] = data
	}
	return sets, gones, nil
}

// updateShard writes set into shard i of dir and removes gone from it,
// copying its other entries as they are (spliceShard), then removes the
// files per peer of those keys that a node not migrated yet left.
func (c *Cache) updateShard(dir string, i int, set map[string][]byte, gone []string) (bool, error) {
	p := filepath.Join(dir, shardName(dir, i))
	data, _, _, err := c.loadRaw(p)
	if err != nil {
		return false, err
	}
	next, changed, err := spliceShard(data, i, set, gone)
	if err != nil {
		return false, &CorruptError{Path: p, Err: err}
	}
	if changed {
		if err := c.writeShard(p, next, nil); err != nil {
			return false, err
		}
	}
	removed, err := removeFlat(dir, set, gone)
	return changed || removed, err
}

// writeShard makes the shard file at p hold data, removing it when data
// holds no entry, and keeps it in c with its contents (nil: decoded when
// read).
func (c *Cache) writeShard(p string, data []byte, shard map[string][]byte) error {
	if len(data) == len(shardHeader) {
		c.put(p, nil, nil)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", p, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := atomicfile.WriteFile(p, data, 0o644); err != nil {
		c.put(p, nil, nil)
		return fmt.Errorf("write %s: %w", p, err)
	}
	c.putWritten(p, data, shard)
	if writeHook != nil {
		writeHook(p, len(data))
	}
	return nil
}

// putWritten keeps data, just written to p, and its contents, stat'ed
// now: the caller holds the lock, so no one else replaced it since.
func (c *Cache) putWritten(p string, data []byte, shard map[string][]byte) {
	if c == nil {
		return
	}
	info, err := os.Lstat(p)
	if err != nil {
		info = nil
	}
	c.putShard(p, data, shard, info)
}

// removeFlat removes the files per peer, under either name, of the keys
// of set and gone, which their shard holds now or no longer: a node not
// migrated yet left them (Migrate). It reports whether it removed any.
func removeFlat(dir string, set map[string][]byte, gone []string) (bool, error) {
	removed := false
	remove := func(key string) error {
		for _, n := range []string{fileName(dir, key), key} {
			err := os.Remove(filepath.Join(dir, n))
			if err == nil {
				removed = true
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s, moved into its shard: %w", n, err)
			}
		}
		return nil
	}
	for k := range set {
		if err := remove(k); err != nil {
			return removed, err
		}
	}
	for _, k := range gone {
		if err := remove(k); err != nil {
			return removed, err
		}
	}
	return removed, nil
}
