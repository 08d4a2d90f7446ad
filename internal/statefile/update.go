package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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

// writeShard makes the shard file at p hold data, removing it when data
// holds no entry, and keeps it in c with its contents (nil: decoded when
// read).
func (c *Cache) writeShard(p string, data []byte, shard map[string][]byte) error {
	if len(data) > maxShardBytes {
		return fmt.Errorf("write %s: shard of %d bytes, more than the %d a read accepts: a key holds too much", p, len(data), maxShardBytes)
	}
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
