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
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/atomicfile"
)

// A write works by group, the shards under one shard of depth 6 (grow.go):
// the groups are independent, written several at once.

// Update is statefile.Update that keeps in c what it writes, and forgets
// what it removes.
func (c *Cache) Update(path string, files, was map[string][]byte, gone []string) (bool, error) {
	sets, gones, err := touched(files, was, gone)
	if err != nil || len(sets)+len(gones) == 0 {
		return false, err
	}
	// Not listed: each key's shard is found by probing its path
	// (probe), so that a write's work follows the keys it writes, not
	// the files of the directory.
	l := listing{dir: Dir(path), lay: newLayout()}
	var jobs []groupJob
	for top := range Shards {
		if sets[top] != nil || gones[top] != nil {
			jobs = append(jobs, groupJob{top: top, set: sets[top], gone: gones[top]})
		}
	}
	return c.run(l, jobs)
}

// touched returns, by shard of depth 6, the keys of files whose bytes
// differ from was's and the keys of gone not in files.
func touched(files, was map[string][]byte, gone []string) (map[int]map[string][]byte, map[int][]string, error) {
	sets, gones := map[int]map[string][]byte{}, map[int][]string{}
	for _, name := range gone {
		if !validKey(name) {
			return nil, nil, fmt.Errorf("remove %s: not a state file name", name)
		}
		if _, written := files[name]; !written {
			top := prefixOf(keyBits(name), topDepth).top()
			gones[top] = append(gones[top], name)
		}
	}
	for name, data := range files {
		if !validKey(name) {
			return nil, nil, fmt.Errorf("write %s: not a state file name", name)
		}
		if old, ok := was[name]; ok && bytes.Equal(old, data) {
			continue
		}
		top := prefixOf(keyBits(name), topDepth).top()
		if sets[top] == nil {
			sets[top] = map[string][]byte{}
		}
		sets[top][name] = data
	}
	return sets, gones, nil
}

// groupJob is a write of the group top: made to hold exactly target
// (exact), or set written into it and gone removed from it, its other
// keys left as they are.
type groupJob struct {
	top    int
	exact  bool
	target map[string][]byte
	set    map[string][]byte
	gone   []string
}

// run carries out jobs in l's directory, several groups at once, then
// removes the files per peer of the groups it made exact, which their
// shards hold now. It reports whether anything changed.
func (c *Cache) run(l listing, jobs []groupJob) (bool, error) {
	var changed atomic.Bool
	var g errgroup.Group
	g.SetLimit(writeParallel)
	for _, job := range jobs {
		g.Go(func() error {
			did, err := c.runJob(l, job)
			if did {
				changed.Store(true)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return changed.Load(), err
	}
	did, err := removeFlatGroups(l, jobs)
	return changed.Load() || did, err
}

// removeFlatGroups removes the files per peer of the groups jobs made
// exact, after syncing the directory that holds their shards now.
func removeFlatGroups(l listing, jobs []groupJob) (bool, error) {
	if len(l.flat) == 0 {
		return false, nil
	}
	if err := atomicfile.SyncDir(l.dir); err != nil {
		return false, err
	}
	removed := false
	for _, job := range jobs {
		if !job.exact {
			continue
		}
		for _, n := range l.flat[job.top] {
			if err := os.Remove(filepath.Join(l.dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, fmt.Errorf("remove %s, moved into its shard: %w", n, err)
			}
			removed = true
		}
	}
	return removed, nil
}

// runJob carries out one group's job. A group in which a crash cut a
// split short (layout.stale) is read whole and made exact, which
// finishes the split; in any other, only the shards of the keys written
// or removed are opened.
//
// The files per peer of keys leaving the state go before any shard is
// written: were a shard written first, a crash between the two would
// leave such a file, which Read would give back. The files of keys
// written go after their shards, which then win.
func (c *Cache) runJob(l listing, job groupJob) (bool, error) {
	if job.exact {
		left, err := removeLeaving(l, job)
		if err != nil {
			return left, err
		}
		changed, err := c.rewriteGroup(l, job.top, job.target)
		return changed || left, err
	}
	left, err := removeFlat(l.dir, nil, job.gone)
	if err != nil {
		return left, err
	}
	changed, err := c.updateGroup(l, job)
	if err != nil {
		return changed || left, err
	}
	removed, err := removeFlat(l.dir, job.set, nil)
	return changed || removed || left, err
}

// removeLeaving removes the files per peer of the group job.top whose keys
// job.target does not hold: the keys an exact write takes out of the state.
func removeLeaving(l listing, job groupJob) (bool, error) {
	removed := false
	for _, n := range l.flat[job.top] {
		if key, _ := keyOf(l.dir, n); hasKey(job.target, key) {
			continue
		}
		if err := os.Remove(filepath.Join(l.dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove %s, whose key leaves the state: %w", n, err)
		}
		removed = true
	}
	return removed, nil
}

// updateGroup writes job.set and removes job.gone in the shards of their
// keys. Unlisted, it finds them by probing each key's path, and lists
// the directory only when that is not enough (probeLeaves).
func (c *Cache) updateGroup(l listing, job groupJob) (bool, error) {
	probed := false
	if !l.listed {
		leaves, err := probeLeaves(l.dir, job)
		if err != nil {
			return false, err
		}
		if leaves != nil {
			did, err := c.updateLeaves(l.dir, leaves, job.set, job.gone, true)
			if !errors.Is(err, errMustList) {
				return did, err
			}
			probed = did
		}
		if l, err = list(l.dir); err != nil {
			return probed, err
		}
	}
	if l.lay.stale(job.top) {
		did, err := c.finishGroup(l, job)
		return did || probed, err
	}
	did, err := c.updateLeaves(l.dir, l.lay.leaf, job.set, job.gone, false)
	return did || probed, err
}

// errMustList stops an Update that found a key's shard by probing its
// path when that shard has to split: other shards may lie under it (a
// split a crash cut short, whose newer halves its pieces would
// overwrite), which only a listing of the directory shows. The Update
// lists it and goes on: what it wrote already is written again as is.
var errMustList = errors.New("a probed shard must split: list the directory")

// finishGroup carries out job in a group a crash left half split: it
// reads the group whole and makes it exact.
func (c *Cache) finishGroup(l listing, job groupJob) (bool, error) {
	cur, err := c.groupContents(l, job.top)
	if err != nil {
		return false, err
	}
	next := maps.Clone(cur)
	for _, k := range job.gone {
		delete(next, k)
	}
	maps.Copy(next, job.set)
	return c.rewriteGroup(l, job.top, next)
}

// groupContents returns the contents of the keys of the group top, each
// from its owner.
func (c *Cache) groupContents(l listing, top int) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range l.lay.group(top) {
		shard, err := c.loadShard(l.dir, p)
		if err != nil {
			return nil, err
		}
		for k, v := range shard {
			if l.owns(p, k) {
				out[k] = v
			}
		}
	}
	return out, nil
}

// probeLeaves returns the shard each key of job is in, found by probing
// its path: when exactly one shard on disk lies on it, that one. It
// returns nil when some key has none on its path (a new key: where it
// goes depends on the shards beside its path) or several (a split a
// crash cut short): the caller lists the directory then.
func probeLeaves(dir string, job groupJob) (func(uint32) prefix, error) {
	mask := dirMask(dir)
	found := map[uint32]prefix{}
	check := func(key string) (bool, error) {
		h := keyBits(key)
		on, err := probe(dir, mask, h)
		if err != nil || len(on) != 1 {
			return false, err
		}
		found[h] = on[0]
		return true, nil
	}
	for k := range job.set {
		if ok, err := check(k); !ok || err != nil {
			return nil, err
		}
	}
	for _, k := range job.gone {
		if ok, err := check(k); !ok || err != nil {
			return nil, err
		}
	}
	return func(h uint32) prefix { return found[h] }, nil
}

// probe returns the shards on disk of the directory dir, whose mask is
// mask, that the bits h start with, shallowest first: it stats the name
// of each of h's prefixes from depth 6 to maxDepth.
func probe(dir string, mask uint32, h uint32) ([]prefix, error) {
	var on []prefix
	for d := uint8(topDepth); d <= maxDepth; d++ {
		p := prefixOf(h, d)
		info, err := os.Lstat(filepath.Join(dir, prefixNameMask(mask, p)))
		switch {
		case err == nil && !info.Mode().IsRegular():
			return nil, &CorruptError{Path: filepath.Join(dir, prefixNameMask(mask, p)), Err: errNotRegular}
		case err == nil:
			on = append(on, p)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, &CorruptError{Path: filepath.Join(dir, prefixNameMask(mask, p)), Err: err}
		}
	}
	return on, nil
}

// updateLeaves writes set into the shards leaf picks for its keys and
// removes gone from theirs, in a group no crash left half split.
func (c *Cache) updateLeaves(dir string, leaf func(uint32) prefix, set map[string][]byte, gone []string, probed bool) (bool, error) {
	sets, gones := map[prefix]map[string][]byte{}, map[prefix][]string{}
	for k, v := range set {
		p := leaf(keyBits(k))
		if sets[p] == nil {
			sets[p] = map[string][]byte{}
		}
		sets[p][k] = v
	}
	for _, k := range gone {
		p := leaf(keyBits(k))
		gones[p] = append(gones[p], k)
	}
	leaves := map[prefix]bool{}
	for p := range sets {
		leaves[p] = true
	}
	for p := range gones {
		leaves[p] = true
	}
	changed := false
	for p := range leaves {
		did, err := c.updateLeaf(dir, p, sets[p], gones[p], probed)
		changed = changed || did
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// updateLeaf writes set into the shard p and removes gone from it,
// copying its other entries as they are (spliceShard); a shard that
// would pass maxShardSize is replaced by its pieces, unless p was found
// by probing (errMustList).
func (c *Cache) updateLeaf(dir string, p prefix, set map[string][]byte, gone []string, probed bool) (bool, error) {
	path := filepath.Join(dir, prefixName(dir, p))
	data, _, _, err := c.loadRaw(path)
	if err != nil {
		return false, err
	}
	next, changed, err := spliceShard(data, p, set, gone)
	if err != nil {
		return false, &CorruptError{Path: path, Err: err}
	}
	if !changed {
		return false, nil
	}
	if len(next) <= maxShardSize {
		return true, c.writeShard(path, next, nil)
	}
	if probed {
		return false, errMustList
	}
	shard, err := decodeShard(next, p)
	if err != nil {
		return true, fmt.Errorf("split %s: %w", path, err)
	}
	var old []prefix
	if data != nil {
		old = []prefix{p}
	}
	return true, c.replace(dir, pieces(p, shard), nil, old)
}

// rewriteGroup makes the group top of l hold exactly target: each key
// goes to the shard layout.leaf picks, split into pieces that fit; each
// shard whose contents differ is written, then the shards no longer
// needed are removed: the empty ones, the ones split, and those a crash
// left under their halves.
func (c *Cache) rewriteGroup(l listing, top int, target map[string][]byte) (bool, error) {
	cur := map[prefix]map[string][]byte{}
	for _, p := range l.lay.group(top) {
		shard, err := c.loadShard(l.dir, p)
		if err != nil {
			return false, err
		}
		cur[p] = shard
	}
	byLeaf := map[prefix]map[string][]byte{}
	for k, v := range target {
		p := l.lay.leaf(keyBits(k))
		if byLeaf[p] == nil {
			byLeaf[p] = map[string][]byte{}
		}
		byLeaf[p][k] = v
	}
	writes := map[prefix]map[string][]byte{}
	for p, files := range byLeaf {
		maps.Copy(writes, pieces(p, files))
	}
	var old []prefix
	for p := range cur {
		if _, ok := writes[p]; !ok {
			old = append(old, p)
		}
	}
	changed := len(old) > 0
	for p, files := range writes {
		if shard, ok := cur[p]; !ok || !sameContents(shard, files) {
			changed = true
		}
	}
	return changed, c.replace(l.dir, writes, cur, old)
}

// replace writes the shards writes (each left alone when cur holds its
// contents already), syncs the directory, then removes the shards old
// that are not among writes, the shallower first: a key leaves a shard only once a deeper one holds
// it or it is gone from every deeper one, so a crash between any two
// steps loses nothing and resurrects nothing (layout.owner).
func (c *Cache) replace(dir string, writes, cur map[prefix]map[string][]byte, old []prefix) error {
	l := listing{dir: dir}
	for p, files := range writes {
		if shard, ok := cur[p]; ok && sameContents(shard, files) {
			continue
		}
		if err := c.writeShard(l.path(p), encodeShard(files), files); err != nil {
			return err
		}
	}
	if len(old) == 0 {
		return nil
	}
	if err := atomicfile.SyncDir(l.dir); err != nil {
		return fmt.Errorf("split in %s: %w", l.dir, err)
	}
	sort.Slice(old, func(a, b int) bool { return old[a].d < old[b].d })
	for _, p := range old {
		if _, kept := writes[p]; kept {
			continue // a single key past the bound stays in its shard
		}
		c.put(l.path(p), nil, nil)
		if err := os.Remove(l.path(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s, split or emptied: %w", l.path(p), err)
		}
	}
	return nil
}
