package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// A split state file is a directory of shard files (shard.go, grow.go),
// each holding the contents of the keys (a peer's key: PeerFileName) its
// name picks, so that a heartbeat in which many peers changed rewrites a few
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
	if !shardHolds(path, key) {
		if flat := FlatFilePath(path, key); fileExists(flat) {
			return flat
		}
	}
	return p + "#" + key
}

// shardHolds reports whether the shard that owns key in the split state
// named by path lists it, reading its entry lines only; a shard it cannot
// read holds nothing, for a message.
func shardHolds(path, key string) bool {
	dir := Dir(path)
	p, ok, err := (*Cache)(nil).ownerOf(dir, keyBits(key))
	if err != nil || !ok {
		return false
	}
	keys, err := scanKeys(filepath.Join(dir, prefixName(dir, p)), p)
	return err == nil && slices.Contains(keys, key)
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// listing is what a split directory holds: its shard files and the files
// per peer a node not migrated yet left, by the shard of depth 6 their
// key is under.
type listing struct {
	dir    string
	lay    layout
	flat   map[int][]string // every file per peer, either name form
	listed bool             // lay and flat hold the directory's files
}

// list lists the split directory dir; a directory that is not there
// holds nothing.
func list(dir string) (listing, error) {
	l := listing{dir: dir, lay: newLayout(), flat: map[int][]string{}, listed: true}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, &CorruptError{Path: dir, Err: err}
	}
	mask := dirMask(dir)
	for _, e := range entries {
		if p, ok := parsePrefix(mask, e.Name()); ok && e.Type().IsRegular() {
			l.lay.add(p)
		} else if isStateFile(e) {
			key, _ := keyOf(dir, e.Name())
			if !validKey(key) {
				// A name no shard can hold (a copy a file manager made,
				// "x 2.json"): refused here, before a migration or a
				// write could move it into a shard no one reads back.
				return l, &CorruptError{Path: filepath.Join(dir, e.Name()), Err: errors.New("not a state file's name (a space, a control character or a backslash): move it away")}
			}
			top := prefixOf(keyBits(key), topDepth).top()
			l.flat[top] = append(l.flat[top], e.Name())
		}
	}
	return l, nil
}

// path returns the path of the shard p of l's directory.
func (l listing) path(p prefix) string { return filepath.Join(l.dir, prefixName(l.dir, p)) }

// shadowed reports whether some shard of l lies under another, so that a
// key read from a shard is the key's only when that shard is its owner.
func (l listing) shadowed() bool {
	for p := range l.lay.files {
		if l.lay.inner[p] {
			return true
		}
	}
	return false
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
	shadowed := l.shadowed()
	for p := range l.lay.files {
		shard, err := c.loadShard(l.dir, p)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range shard {
			if !shadowed || l.owns(p, k) {
				files[k] = v
			}
		}
	}
	return legacy, files, nil
}

// owns reports whether the shard p of l is the owner of key (layout.owner).
func (l listing) owns(p prefix, key string) bool {
	o, _ := l.lay.owner(keyBits(key))
	return o == p
}

// loadShard returns the contents of shard p of dir, none when it is not
// there, opening it only when it changed since c last read or wrote it.
// The map is shared with c: callers must not change it.
func (c *Cache) loadShard(dir string, p prefix) (map[string][]byte, error) {
	path := filepath.Join(dir, prefixName(dir, p))
	data, shard, info, err := c.loadRaw(path)
	if shard != nil || data == nil || err != nil {
		return shard, err
	}
	shard, err = decodeShard(data, p)
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	c.putShard(path, data, shard, info)
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
	if !info.Mode().IsRegular() {
		return nil, nil, nil, &CorruptError{Path: p, Err: errNotRegular}
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
// since c last read or wrote it, and keeps what it reads. It finds the
// key's shard (layout.owner) in the directory's listing c keeps, listed
// again only when the directory changed; without a Cache, by probing the
// names of the key's path (probe).
func (c *Cache) ReadOne(path, name string) ([]byte, error) {
	if !validKey(name) {
		return nil, fmt.Errorf("read %s: not a state file name", name)
	}
	dir := Dir(path)
	p, ok, err := c.ownerOf(dir, keyBits(name))
	if err != nil {
		return nil, err
	}
	if ok {
		shard, err := c.loadShard(dir, p)
		if err != nil {
			return nil, err
		}
		if data, ok := shard[name]; ok {
			return data, nil
		}
	}
	if c != nil {
		// The listing c keeps is trusted while the directory's inode,
		// size and time stay; on a file system whose times are coarse,
		// a split by another process within one tick moves none of
		// them. A key not found is looked for again by its path: the
		// names on it are stat'ed, and a shard read only when the key's
		// owner is another than the listing said.
		on, err := probe(dir, dirMask(dir), keyBits(name))
		if err != nil {
			return nil, err
		}
		if n := len(on); n > 0 && (!ok || on[n-1] != p) {
			shard, err := c.loadShard(dir, on[n-1])
			if err != nil {
				return nil, err
			}
			if data, ok := shard[name]; ok {
				return data, nil
			}
		}
	}
	return readOneFlat(dir, name)
}

// errNotRegular refuses a shard's name that is not a regular file (a
// link, a pipe): reading it could block or have no end.
var errNotRegular = errors.New("not a regular file: a shard is one")

// ownerOf returns the shard on disk of dir a key of bits h is read from
// (layout.owner), and whether there is one.
func (c *Cache) ownerOf(dir string, h uint32) (prefix, bool, error) {
	if c == nil {
		on, err := probe(dir, dirMask(dir), h)
		if err != nil || len(on) == 0 {
			return prefix{}, false, err
		}
		return on[len(on)-1], true, nil
	}
	lay, err := c.layoutOf(dir)
	if err != nil {
		return prefix{}, false, err
	}
	p, ok := lay.owner(h)
	return p, ok, nil
}

// readOneFlat reads the file per peer of key name a node not migrated
// yet left in dir, nil when there is none.
func readOneFlat(dir, name string) ([]byte, error) {
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
	shadowed := l.shadowed()
	for p := range l.lay.files {
		keys, err := scanKeys(l.path(p), p)
		if err != nil {
			return nil, &CorruptError{Path: l.path(p), Err: err}
		}
		for _, k := range keys {
			if !shadowed || l.owns(p, k) {
				seen[k] = true
			}
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
// it writes each shard whose bytes differ (atomically), splitting those
// that would pass maxShardSize, removes the shards left empty and the
// files per peer of a node not migrated yet, then the old single file.
// It reports whether anything on disk changed. A crash at any point
// leaves a state Read reads back whole: each shard is old or new, a
// deeper shard wins over the one it splits, a shard wins over a file per
// peer, the old file goes last.
func Write(path string, files map[string][]byte) (bool, error) {
	return Rewrite(path, files, nil)
}

// Rewrite is Write for a caller that read the state with Read and holds
// what keeps it current (a lock): a group of shards (those under one
// shard of depth 6) whose keys' bytes all equal was's is left alone
// without being opened again, and any other has the keys that differ
// written. With was nil, each shard is read back and compared, as Write
// does.
func Rewrite(path string, files, was map[string][]byte) (bool, error) {
	return (*Cache)(nil).Rewrite(path, files, was)
}

// Rewrite is statefile.Rewrite that keeps in c what it writes, and
// forgets what it removes.
func (c *Cache) Rewrite(path string, files, was map[string][]byte) (bool, error) {
	for name := range files {
		if !validKey(name) {
			return false, fmt.Errorf("rewrite %s: write %s: not a state file name", path, name)
		}
	}
	l, err := list(Dir(path))
	if err != nil {
		return false, fmt.Errorf("rewrite %s: %w", path, err)
	}
	groups, wasGroups := group(files), group(was)
	var jobs []groupJob
	for top := range Shards {
		onDisk := len(l.lay.group(top)) > 0
		trusted := was != nil && len(l.flat[top]) == 0 && onDisk == (len(wasGroups[top]) > 0) && !l.lay.stale(top)
		switch {
		case trusted && sameContents(groups[top], wasGroups[top]):
		case trusted:
			set, gone := diff(groups[top], wasGroups[top])
			jobs = append(jobs, groupJob{top: top, set: set, gone: gone})
		case onDisk || len(groups[top]) > 0 || len(l.flat[top]) > 0:
			jobs = append(jobs, groupJob{top: top, exact: true, target: groups[top]})
		}
	}
	changed, err := c.run(l, jobs)
	if err != nil {
		return changed, fmt.Errorf("rewrite %s: %w", path, err)
	}
	if err := os.Remove(path); err == nil {
		changed = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return changed, fmt.Errorf("remove %s after splitting it: %w", path, err)
	}
	return changed, nil
}

// diff returns the keys of files whose bytes differ from was's, and the
// keys of was not in files.
func diff(files, was map[string][]byte) (map[string][]byte, []string) {
	set := map[string][]byte{}
	for k, v := range files {
		if old, ok := was[k]; !ok || !bytes.Equal(old, v) {
			set[k] = v
		}
	}
	var gone []string
	for k := range was {
		if _, ok := files[k]; !ok {
			gone = append(gone, k)
		}
	}
	return set, gone
}

// group splits files by their shard of depth 6; nil gives nil.
func group(files map[string][]byte) []map[string][]byte {
	if files == nil {
		return nil
	}
	out := make([]map[string][]byte, Shards)
	for k, v := range files {
		top := prefixOf(keyBits(k), topDepth).top()
		if out[top] == nil {
			out[top] = map[string][]byte{}
		}
		out[top][k] = v
	}
	return out
}

// sameContents reports whether a and b hold the same keys with the same
// bytes.
func sameContents(a, b map[string][]byte) bool { return maps.EqualFunc(a, b, bytes.Equal) }

// hasKey reports whether files holds key, whatever its bytes.
func hasKey(files map[string][]byte, key string) bool {
	_, ok := files[key]
	return ok
}
