package statefile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A sharded split state keeps its keys' contents in shard files, a key
// in the shard its sha256 picks (grow.go), so that a heartbeat in which
// many peers changed rewrites a few files per directory, and git's cost of
// a changed file (a delta header, a base id in a thin pack, a tree entry)
// is shared by the peers of a shard (docs/decisions.md, "A split state's
// shards").
//
// A shard file is text (docs/formats.md, "Shard files"):
//
//	meshnode shard 1
//	== <key> <n>
//	<the key's n bytes, then a newline when they do not end in one>
//	== <next key> <n>
//	...
//
// its keys in increasing byte order, each once, each of this shard. The
// length makes the round trip byte-exact whatever a content holds; a
// changed peer changes its own lines only, so git's delta of a shard
// stays local.

// Shards is how many shard files a sharded split directory starts with,
// the shards of depth 6 (grow.go); each splits as it grows.
const Shards = 64

// shardHeader is a shard file's first line.
const shardHeader = "meshnode shard 1\n"

// maxShardBytes bounds a shard file Read accepts and a write makes: a
// write keeps a shard of two keys or more under maxShardSize (4 MiB), so
// a larger one is a single key's content, and one 16 times the bound is
// hostile or broken; it is refused rather than loaded, and a write that
// would make one fails rather than leave a file Read refuses. It is under
// the 100 MB a git host refuses a file at.
const maxShardBytes = 64 << 20

// maxKeyLen bounds a key: a peer's key is at most 60+1+8+5 bytes.
const maxKeyLen = 255

// shardPath returns the path of the shard that holds key in the split
// state named by path, as the directory is now: the shard it is read
// from, or the one it would be written to.
func shardPath(path, key string) string {
	dir := Dir(path)
	l, err := list(dir)
	if err != nil {
		return filepath.Join(dir, prefixName(dir, prefixOf(keyBits(key), topDepth)))
	}
	p, ok := l.lay.owner(keyBits(key))
	if !ok {
		p = l.lay.leaf(keyBits(key))
	}
	return filepath.Join(dir, prefixName(dir, p))
}

// validKey reports whether key can name a content in a shard: a state
// file name (a base name ending in ".json", not hidden) without spaces,
// control characters or slashes, at most maxKeyLen bytes.
func validKey[K ~string | ~[]byte](key K) bool {
	n := len(key)
	if n <= len(".json") || n > maxKeyLen || key[0] == '.' || string(key[n-5:]) != ".json" {
		return false
	}
	for i := range n {
		if c := key[i]; c <= ' ' || c == '/' || c == '\\' || c == 0x7f {
			return false
		}
	}
	return true
}

// encodeShard returns the shard file holding files, by key, sorted.
func encodeShard(files map[string][]byte) []byte {
	keys := make([]string, 0, len(files))
	size := len(shardHeader)
	for k, v := range files {
		keys = append(keys, k)
		size += len(k) + len(v) + 16
	}
	sort.Strings(keys)
	out := make([]byte, 0, size)
	out = append(out, shardHeader...)
	for _, k := range keys {
		v := files[k]
		out = appendEntry(out, k, v)
	}
	return out
}

// appendEntry appends the entry of key holding content to a shard file.
func appendEntry[K ~string | ~[]byte](out []byte, key K, content []byte) []byte {
	out = append(out, "== "...)
	out = append(out, key...)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(len(content)), 10)
	out = append(out, '\n')
	out = append(out, content...)
	if len(content) == 0 || content[len(content)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

// decodeShard parses the shard file data, shard p of its directory, into
// its contents by key. The contents share data's bytes. It refuses a
// file that encodeShard would not have written: a key twice, out of
// order, of another shard or not a key, a length past the end.
func decodeShard(data []byte, p prefix) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := walkShard(data, &p, func(key, content, _ []byte) {
		out[string(key)] = content
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walkShard calls fn with the key, the content and the whole entry of
// each entry of the shard file data, shard p of its directory (any shard
// when p is nil), in order, after checking it as decodeShard says. It
// allocates nothing, so a write of one key into a shard of many costs
// what the one key does (spliceShard).
func walkShard(data []byte, p *prefix, fn func(key, content, entry []byte)) error {
	if len(data) > maxShardBytes {
		return fmt.Errorf("shard of %d bytes, more than the %d accepted", len(data), maxShardBytes)
	}
	rest, ok := bytes.CutPrefix(data, []byte(shardHeader))
	if !ok {
		return fmt.Errorf("line 1: not a shard file (want %q)", strings.TrimSpace(shardHeader))
	}
	line := 2
	var prev []byte
	for len(rest) > 0 {
		key, content, next, err := decodeEntry(rest)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		switch {
		case prev != nil && bytes.Compare(key, prev) <= 0:
			return fmt.Errorf("line %d: key %s after %s: keys must be sorted, each once", line, key, prev)
		case p != nil && !p.has(keyBits(key)):
			return fmt.Errorf("line %d: key %s is not of shard %s", line, key, *p)
		}
		entry := rest[:len(rest)-len(next)]
		fn(key, content, entry)
		line += bytes.Count(entry, []byte{'\n'})
		prev, rest = key, next
	}
	return nil
}

// decodeEntry parses one "== <key> <n>" line and its content off the
// front of data, returning what follows.
func decodeEntry(data []byte) (key, content, rest []byte, err error) {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil, nil, nil, fmt.Errorf("entry line without its newline")
	}
	key, n, err := entryLine(data[:nl])
	if err != nil {
		return nil, nil, nil, err
	}
	body := data[nl+1:]
	if n > int64(len(body)) {
		return nil, nil, nil, fmt.Errorf("key %s: bad length %d (%d bytes left)", key, n, len(body))
	}
	size := int(n)
	content, rest = body[:size:size], body[size:]
	if size == 0 || content[size-1] != '\n' {
		if len(rest) == 0 || rest[0] != '\n' {
			return nil, nil, nil, fmt.Errorf("key %s: content not followed by a newline", key)
		}
		rest = rest[1:]
	}
	return key, content, rest, nil
}

// entryLine parses an entry line without its newline: "== <key> <n>",
// n in decimal without leading zeros.
func entryLine(line []byte) (key []byte, n int64, err error) {
	head, ok := bytes.CutPrefix(line, []byte("== "))
	if !ok {
		return nil, 0, fmt.Errorf("want \"== <key> <length>\", got %.40q", line)
	}
	key, num, ok := bytes.Cut(head, []byte(" "))
	if !ok || !validKey(key) {
		return nil, 0, fmt.Errorf("bad key in %.60q", head)
	}
	if len(num) == 0 || len(num) > 18 || (num[0] == '0' && len(num) > 1) {
		return nil, 0, fmt.Errorf("key %s: bad length %.20q", key, num)
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return nil, 0, fmt.Errorf("key %s: bad length %.20q", key, num)
		}
		n = n*10 + int64(c-'0')
	}
	return key, n, nil
}

// spliceShard returns the shard file data, shard p, with the contents of
// set written and the keys of gone removed (a key in both is written),
// copying every other entry as it is, and whether anything changed. A
// data of nil is an empty shard.
func spliceShard(data []byte, p prefix, set map[string][]byte, gone []string) ([]byte, bool, error) {
	if data == nil {
		data = []byte(shardHeader)
	}
	keys := make([]string, 0, len(set)+len(gone))
	for k := range set {
		keys = append(keys, k)
	}
	for _, k := range gone {
		if _, ok := set[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]byte, 0, len(data)+spliceGrowth(set))
	out = append(out, shardHeader...)
	changed := false
	// next adds the keys to write that sort before key (all when key is
	// nil), and skips those to remove.
	next := func(key []byte) {
		for len(keys) > 0 && (key == nil || keys[0] < string(key)) {
			if v, ok := set[keys[0]]; ok {
				out = appendEntry(out, keys[0], v)
				changed = true
			}
			keys = keys[1:]
		}
	}
	err := walkShard(data, &p, func(key, content, entry []byte) {
		next(key)
		if len(keys) == 0 || keys[0] != string(key) {
			out = append(out, entry...)
			return
		}
		v, ok := set[keys[0]]
		switch {
		case !ok:
			changed = true // gone
		case bytes.Equal(v, content):
			out = append(out, entry...)
		default:
			out = appendEntry(out, key, v)
			changed = true
		}
		keys = keys[1:]
	})
	if err != nil {
		return nil, false, err
	}
	next(nil)
	return out, changed, nil
}

// spliceGrowth is how many bytes writing set may add to a shard.
func spliceGrowth(set map[string][]byte) int {
	n := 0
	for k, v := range set {
		n += len(k) + len(v) + 32
	}
	return n
}

// ShardSizes returns the size of each shard file that would hold files,
// by key, in a sharded split state written afresh, splits included;
// shards left empty are not counted. For measurements (bench/shardsizes).
func ShardSizes(files map[string][]byte) []int {
	var out []int
	for top, g := range group(files) {
		for _, piece := range pieces(prefix{d: topDepth, n: uint32(top)}, g) {
			out = append(out, shardSize(piece))
		}
	}
	return out
}
