package statefile

import (
	"cmp"
	"maps"
	"slices"
)

// ReadEach calls fn with the contents of every key of the split state
// named by path, the same keys and bytes Read gives, reading one shard
// at a time: a shard's bytes are no longer held once fn has been called
// with its keys, so a caller that decodes each content whole (the
// ledger's window, 160 MB of shards after three years of 10,000 agents)
// holds one shard's bytes at a time, not every shard's. The shards come
// in the order of their prefixes (depth, then number), each shard's keys
// sorted, then the keys a node not migrated yet keeps only in a file per
// peer, sorted. content is a slice of its shard's bytes: a caller that
// keeps it keeps the whole shard. The old single file is not among them
// (ReadLegacy). It returns the first error of fn as it is; a file it
// cannot read is a *CorruptError. Nothing in this tree calls it yet: it
// is for the ledger's load, which holds Read's map of every shard while
// it decodes them.
func ReadEach(path string, fn func(key string, content []byte) error) error {
	_, flat, err := (*Cache)(nil).readFlat(path)
	if err != nil {
		return err
	}
	l, err := list(Dir(path))
	if err != nil {
		return err
	}
	shadowed := l.shadowed()
	for _, p := range prefixesInOrder(l.lay.files) {
		shard, err := (*Cache)(nil).loadShard(l.dir, p)
		if err != nil {
			return err
		}
		for _, k := range slices.Sorted(maps.Keys(shard)) {
			if shadowed && !l.owns(p, k) {
				continue
			}
			delete(flat, k) // a shard's content of a key wins
			if err := fn(k, shard[k]); err != nil {
				return err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(flat)) {
		if err := fn(k, flat[k]); err != nil {
			return err
		}
	}
	return nil
}

// prefixesInOrder returns the prefixes of files by depth, then number.
func prefixesInOrder(files map[prefix]bool) []prefix {
	return slices.SortedFunc(maps.Keys(files), func(a, b prefix) int {
		return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.n, b.n))
	})
}
