package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// A split state file is a directory of Shards shard files (shard.go), each
// holding the contents of the keys (a peer's key: PeerFileName) its name
// picks, so that a heartbeat in which many peers changed rewrites a few
// files, and no file grows with the whole mesh. It is named by the path
// of the single file older nodes kept (mesh-state/ledger.json): its files
// live in that path without ".json" (mesh-state/ledger/). A file still at
// the old path is read as well and removed by the next Rewrite, and a
// file per peer as the nodes before shards kept (flat.go) is read under
// its shard's contents and moved into its shard by Migrate or the next
// write of that shard (docs/contracts.md).

// Dir returns the directory the split state named by path lives in.
func Dir(path string) string { return strings.TrimSuffix(path, ".json") }

// PeerPath returns the shard file that holds the contents of the peer at
// url in the split state named by path.
func PeerPath(path, url string) string { return shardPath(path, PeerFileName(url)) }

// PeerRef names the contents of the peer at url in the split state named
// by path for a person: its shard's path, "#", its key (FilePath).
func PeerRef(path, url string) string {
	return PeerPath(path, url) + "#" + PeerFileName(url)
}

// FilePath names where the contents of key in the split state named by
// path are, for a message: its shard's path, "#", the key; or the key's
// own file where a node not migrated yet keeps it there only.
func FilePath(path, key string) string {
	p := shardPath(path, key)
	if _, err := os.Lstat(p); err != nil {
		if flat := FlatFilePath(path, key); fileExists(flat) {
			return flat
		}
	}
	return p + "#" + key
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// listing is what a split directory holds: its shard files and the files
// per peer a node not migrated yet left, by shard.
type listing struct {
	dir    string
	shards map[int]bool
	flat   map[int][]string // every file per peer, either name form
}

// list lists the split directory dir; a directory that is not there
// holds nothing.
func list(dir string) (listing, error) {
	l := listing{dir: dir, shards: map[int]bool{}, flat: map[int][]string{}}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, &CorruptError{Path: dir, Err: err}
	}
	mask := dirMask(dir)
	for _, e := range entries {
		if i, ok := shardIndexMask(mask, e.Name()); ok && e.Type().IsRegular() {
			l.shards[i] = true
		} else if isStateFile(e) {
			key, _ := keyOf(dir, e.Name())
			l.flat[shardOf(key)] = append(l.flat[shardOf(key)], e.Name())
		}
	}
	return l, nil
}

// Read reads the split state named by path: the old single file (nil
// when there is none) and the contents of every key, from its shards and
// from the files per peer a node not migrated yet left (a shard's
// content of a key winning). A file it cannot read is a *CorruptError.
func Read(path string) (legacy []byte, files map[string][]byte, err error) {
	return (*Cache)(nil).Read(path)
}

// Read is statefile.Read that opens only the files of the directory that
// changed since c last read or wrote them, and keeps what it reads. The
// bytes it returns are shared with c: callers must not change them.
func (c *Cache) Read(path string) (legacy []byte, files map[string][]byte, err error) {
	legacy, files, err = c.readFlat(path)
	if err != nil {
		return nil, nil, err
	}
	l, err := list(Dir(path))
	if err != nil {
		return nil, nil, err
	}
	for i := range l.shards {
		shard, err := c.loadShard(l.dir, i)
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(files, shard)
	}
	return legacy, files, nil
}

// loadShard returns the contents of shard i of dir, none when it is not
// there, opening it only when it changed since c last read or wrote it.
// The map is shared with c: callers must not change it.
func (c *Cache) loadShard(dir string, i int) (map[string][]byte, error) {
	p := filepath.Join(dir, shardName(dir, i))
	data, shard, info, err := c.loadRaw(p)
	if shard != nil || data == nil || err != nil {
		return shard, err
	}
	shard, err = decodeShard(data, i)
	if err != nil {
		return nil, &CorruptError{Path: p, Err: err}
	}
	c.putShard(p, data, shard, info)
	return shard, nil
}

// loadRaw returns the bytes of the shard file at p, nil when it is not
// there, and its decoded contents when c kept them, opening it only when
// it changed since c last read or wrote it.
func (c *Cache) loadRaw(p string) ([]byte, map[string][]byte, fs.FileInfo, error) {
	info, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		c.put(p, nil, nil)
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, &CorruptError{Path: p, Err: err}
	}
	if info.Size() > maxShardBytes {
		return nil, nil, nil, &CorruptError{Path: p, Err: fmt.Errorf("shard of %d bytes, more than the %d accepted", info.Size(), maxShardBytes)}
	}
	if data, shard, ok := c.getShard(p, info); ok && data != nil {
		return data, shard, info, nil
	}
	data, info, err := readFileInfo(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, &CorruptError{Path: p, Err: err}
	}
	c.putShard(p, data, nil, info)
	return data, nil, info, nil
}

// ReadOne reads the contents of key name of the split state named by path
// alone (its shard, or its own file on a node not migrated yet), for a
// caller that reads a peer's contents only when it needs them; a key that
// is not there gives nil. A file it cannot read is a *CorruptError.
func ReadOne(path, name string) ([]byte, error) {
	return (*Cache)(nil).ReadOne(path, name)
}

// ReadOne is statefile.ReadOne that opens the shard only when it changed
// since c last read or wrote it, and keeps what it reads.
func (c *Cache) ReadOne(path, name string) ([]byte, error) {
	if !validKey(name) {
		return nil, fmt.Errorf("read %s: not a state file name", name)
	}
	dir := Dir(path)
	shard, err := c.loadShard(dir, shardOf(name))
	if err != nil {
		return nil, err
	}
	if data, ok := shard[name]; ok {
		return data, nil
	}
	for _, n := range []string{fileName(dir, name), name} {
		if _, err := os.Lstat(filepath.Join(dir, n)); errors.Is(err, fs.ErrNotExist) {
			continue // not opened, so not counted as read (SetReadHook)
		}
		data, err := readFile(filepath.Join(dir, n))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &CorruptError{Path: filepath.Join(dir, n), Err: err}
		}
		return data, nil
	}
	return nil, nil
}

// Names lists the keys of the split state named by path, sorted; none
// when there is no directory. It reads the entry lines of every shard,
// skipping the contents (scanKeys), so listing a state costs about a
// hundred bytes a key however much each holds.
func Names(path string) ([]string, error) {
	l, err := list(Dir(path))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, names := range l.flat {
		for _, n := range names {
			key, _ := keyOf(l.dir, n)
			seen[key] = true
		}
	}
	for i := range l.shards {
		p := filepath.Join(l.dir, shardName(l.dir, i))
		keys, err := scanKeys(p, i)
		if err != nil {
			return nil, &CorruptError{Path: p, Err: err}
		}
		for _, k := range keys {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// Write makes the split state named by path hold exactly files, by key:
// it writes each shard whose bytes differ (atomically), removes the
// shards left empty and the files per peer of a node not migrated yet,
// then the old single file. It reports whether anything on disk changed.
// A crash at any point leaves a state Read reads back whole: each shard
// is old or new, a shard wins over a file per peer, the old file goes
// last.
func Write(path string, files map[string][]byte) (bool, error) {
	return Rewrite(path, files, nil)
}

// Rewrite is Write for a caller that read the state with Read and holds
// what keeps it current (a lock): a shard whose keys' bytes all equal
// was's is left alone without being opened again, and any other is
// written. With was nil, each shard is read back and compared, as Write
// does.
func Rewrite(path string, files, was map[string][]byte) (bool, error) {
	return (*Cache)(nil).Rewrite(path, files, was)
}

// Rewrite is statefile.Rewrite that keeps in c what it writes, and
// forgets what it removes.
func (c *Cache) Rewrite(path string, files, was map[string][]byte) (bool, error) {
	l, err := list(Dir(path))
	if err != nil {
		return false, fmt.Errorf("rewrite %s: %w", path, err)
	}
	groups, wasGroups := group(files), group(was)
	var plans []shardPlan
	for i := range Shards {
		if was != nil && len(l.flat[i]) == 0 && sameContents(groups[i], wasGroups[i]) && l.shards[i] == (len(groups[i]) > 0) {
			continue
		}
		pl := shardPlan{i: i, files: groups[i]}
		if was == nil || len(l.flat[i]) > 0 {
			if pl.shard, err = c.loadShard(l.dir, i); err != nil {
				return false, err
			}
			pl.known = true
		}
		plans = append(plans, pl)
	}
	changed, err := c.apply(l, plans)
	if err != nil {
		return changed, err
	}
	if err := os.Remove(path); err == nil {
		changed = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return changed, fmt.Errorf("remove %s after splitting it: %w", path, err)
	}
	return changed, nil
}

// group splits files by shard; nil gives nil.
func group(files map[string][]byte) []map[string][]byte {
	if files == nil {
		return nil
	}
	out := make([]map[string][]byte, Shards)
	for k, v := range files {
		i := shardOf(k)
		if out[i] == nil {
			out[i] = map[string][]byte{}
		}
		out[i][k] = v
	}
	return out
}

// sameContents reports whether a and b hold the same keys with the same
// bytes.
func sameContents(a, b map[string][]byte) bool { return maps.EqualFunc(a, b, bytes.Equal) }

// shardPlan is what a write makes shard i hold: files, by key (none: the
// shard goes). When known, shard is what the shard file holds now, and
// a shard that holds files already is left alone.
type shardPlan struct {
	i     int
	files map[string][]byte
	shard map[string][]byte
	known bool
}

// apply carries out plans in l's directory, several shards at once, each
// written atomically, then removes the files per peer of the shards it
// wrote, which they hold now. It reports whether anything changed.
func (c *Cache) apply(l listing, plans []shardPlan) (bool, error) {
	var changed atomic.Bool
	var g errgroup.Group
	g.SetLimit(writeParallel)
	for _, pl := range plans {
		g.Go(func() error {
			did, err := c.applyOne(l, pl)
			if did {
				changed.Store(true)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return changed.Load(), err
	}
	if len(l.flat) > 0 {
		// The shards on disk before the files per peer they now hold go.
		if err := atomicfile.SyncDir(l.dir); err != nil {
			return changed.Load(), err
		}
	}
	for _, pl := range plans {
		for _, n := range l.flat[pl.i] {
			if err := os.Remove(filepath.Join(l.dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return changed.Load(), fmt.Errorf("remove %s, moved into its shard: %w", n, err)
			}
			changed.Store(true)
		}
	}
	return changed.Load(), nil
}

// applyOne makes shard pl.i of l's directory hold pl.files.
func (c *Cache) applyOne(l listing, pl shardPlan) (bool, error) {
	if len(pl.files) == 0 && !l.shards[pl.i] {
		return false, nil
	}
	if pl.known && l.shards[pl.i] && sameContents(pl.files, pl.shard) {
		return false, nil
	}
	p := filepath.Join(l.dir, shardName(l.dir, pl.i))
	return true, c.writeShard(p, encodeShard(pl.files), pl.files)
}
