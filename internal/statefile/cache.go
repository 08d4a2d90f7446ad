package statefile

import (
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
	files map[string]cached // by path
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
	c.files[path] = cached{data: data, info: info}
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
