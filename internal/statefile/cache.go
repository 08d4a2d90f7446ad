package statefile

import (
	"errors"
	"io/fs"
	"os"
	"sync"
)

// Cache keeps the files of one split state as this process last read or
// wrote them, each with what identifies it on disk (its device and inode,
// size and modification time), so that a later Read opens only the files
// that changed since: a caller that reads the state once a call, under
// its lock, reads each unchanged file once however many calls it makes.
// It relies on every writer replacing a file by renaming a new one over
// it, as Write does (a new inode), or else changing its size or time.
// A nil *Cache keeps nothing: every Read opens every file. Its zero value
// is ready to use, and it is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	files map[string]cached    // by path
	dirs  map[string]cachedDir // the shards of a directory, by its path
}

// cachedDir is the shards a directory held when it was as info says.
type cachedDir struct {
	info fs.FileInfo
	lay  layout
}

// layoutOf returns the shards of the directory dir, listing it only when
// it changed (its inode, size or modification time: creating, renaming
// or removing a file in it changes them) since c last listed it. The
// layout is shared with c: callers must not change it.
func (c *Cache) layoutOf(dir string) (layout, error) {
	info, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return newLayout(), nil
	}
	if err != nil {
		return layout{}, &CorruptError{Path: dir, Err: err}
	}
	c.mu.Lock()
	k, ok := c.dirs[dir]
	c.mu.Unlock()
	if ok && sameFile(k.info, info) {
		return k.lay, nil
	}
	l, err := list(dir)
	if err != nil {
		return layout{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs == nil {
		c.dirs = map[string]cachedDir{}
	}
	c.dirs[dir] = cachedDir{info: info, lay: l.lay}
	return l.lay, nil
}

type cached struct {
	data  []byte
	info  fs.FileInfo
	shard map[string][]byte // a shard's contents by key, once decoded
}

// get returns the bytes kept for path when info, its directory entry's,
// is the file they were read from or written to.
func (c *Cache) get(path string, info fs.FileInfo) ([]byte, bool) {
	if c == nil || info == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.files[path]
	if !ok || !sameFile(k.info, info) {
		return nil, false
	}
	return k.data, true
}

// put keeps data as the content of path, as info describes it; with info
// nil it forgets path.
func (c *Cache) put(path string, data []byte, info fs.FileInfo) {
	c.putShard(path, data, nil, info)
}

// getShard returns what c keeps of the shard at path, its bytes and its
// decoded contents (either may be nil), when info is the file they were
// read from or written to.
func (c *Cache) getShard(path string, info fs.FileInfo) (data []byte, shard map[string][]byte, ok bool) {
	if c == nil || info == nil {
		return nil, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.files[path]
	if !ok || !sameFile(k.info, info) {
		return nil, nil, false
	}
	return k.data, k.shard, true
}

// putShard keeps data and shard, its decoded contents (either may be
// nil), as the shard at path, as info describes it; with info nil it
// forgets path.
func (c *Cache) putShard(path string, data []byte, shard map[string][]byte, info fs.FileInfo) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if info == nil {
		delete(c.files, path)
		return
	}
	if c.files == nil {
		c.files = map[string]cached{}
	}
	c.files[path] = cached{data: data, info: info, shard: shard}
}

func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
