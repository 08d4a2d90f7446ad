package statefile

// shardOf returns the shard of depth 6 of key.
func shardOf(key string) int { return prefixOf(keyBits(key), topDepth).top() }

// shardName returns the name of the shard of depth 6 i of dir.
func shardName(dir string, i int) string {
	return prefixName(dir, prefix{d: topDepth, n: uint32(i)})
}

// shardIndex returns the shard of depth 6 a name of dir is, and whether
// it is one.
func shardIndex(dir, name string) (int, bool) {
	p, ok := parsePrefix(dirMask(dir), name)
	return int(p.n), ok && p.d == topDepth
}
