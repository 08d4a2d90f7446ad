package statefile

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A sharded split state keeps its keys' contents in Shards files, a key in
// the shard the first byte of the sha256 of the key picks (shardOf), so
// that a heartbeat in which many peers changed rewrites a few files per
// directory, and git's cost of a changed file (a delta header, a base id
// in a thin pack, a tree entry) is shared by the peers of a shard
// (docs/decisions.md, "A split state's shards").
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

// Shards is how many shard files a sharded split directory holds at most.
const Shards = 64

// shardHeader is a shard file's first line.
const shardHeader = "meshnode shard 1\n"

// maxShardBytes bounds a shard file Read accepts: a shard of the ledger's
// open window is a few MB at 10,000 agents; a larger one is refused
// rather than loaded.
const maxShardBytes = 256 << 20

// maxKeyLen bounds a key: a peer's key is at most 60+1+8+5 bytes.
const maxKeyLen = 255

// shardOf returns the shard of key: the first byte of its sha256, modulo
// Shards (256 is a multiple of it, so every shard is as likely).
func shardOf[K ~string | ~[]byte](key K) int {
	sum := sha256.Sum256([]byte(key))
	return int(sum[0]) % Shards
}

// shardName returns the file name of shard i of the split directory dir:
// "shard-<i, two digits>_<8 hex>.peers", the hex the directory's mask
// (dirMask) XORed with i, so that every shard of every directory differs
// from the others in its last 16 characters, the part of a path git's
// pack-objects hashes to find a file's previous version (names.go).
func shardName(dir string, i int) string {
	return fmt.Sprintf("shard-%02d_%s.peers", i, hexOf(dirMask(dir)^uint32(i)))
}

// shardIndex returns the shard a file name of the directory dir is, and
// whether it is one.
func shardIndex(dir, name string) (int, bool) {
	return shardIndexMask(dirMask(dir), name)
}

// shardIndexMask is shardIndex for the directory whose mask is mask,
// without allocating: a listing checks every name of the directory.
func shardIndexMask(mask uint32, name string) (int, bool) {
	if len(name) != len("shard-00_00000000.peers") || !strings.HasPrefix(name, "shard-") ||
		name[8] != '_' || !strings.HasSuffix(name, ".peers") {
		return 0, false
	}
	i, err := strconv.Atoi(name[6:8])
	if err != nil || i < 0 || i >= Shards || name[6] < '0' || name[6] > '9' {
		return 0, false
	}
	x, err := strconv.ParseUint(name[9:17], 16, 32)
	if err != nil || uint32(x) != mask^uint32(i) || strings.ContainsAny(name[9:17], "ABCDEF+-") {
		return 0, false
	}
	return i, true
}

// shardPath returns the path of the shard that holds key in the split
// state named by path.
func shardPath(path, key string) string {
	dir := Dir(path)
	return filepath.Join(dir, shardName(dir, shardOf(key)))
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

// decodeShard parses the shard file data, shard i of its directory, into
// its contents by key. The contents share data's bytes. It refuses a
// file that encodeShard would not have written: a key twice, out of
// order, of another shard or not a key, a length past the end.
func decodeShard(data []byte, i int) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := walkShard(data, i, func(key, content, _ []byte) {
		out[string(key)] = content
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walkShard calls fn with the key, the content and the whole entry of
// each entry of the shard file data, shard i of its directory (any shard
// when i < 0), in order, after checking it as decodeShard says. It
// allocates nothing, so a write of one key into a shard of many costs
// what the one key does (spliceShard).
func walkShard(data []byte, i int, fn func(key, content, entry []byte)) error {
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
		case i >= 0 && shardOf(key) != i:
			return fmt.Errorf("line %d: key %s belongs to shard %d, not %d", line, key, shardOf(key), i)
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

// spliceShard returns the shard file data, shard i, with the contents of
// set written and the keys of gone removed (a key in both is written),
// copying every other entry as it is, and whether anything changed. A
// data of nil is an empty shard.
func spliceShard(data []byte, i int, set map[string][]byte, gone []string) ([]byte, bool, error) {
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
	err := walkShard(data, i, func(key, content, entry []byte) {
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
// by key, in a sharded split state; shards left empty are not counted.
// For measurements (bench/shardsizes).
func ShardSizes(files map[string][]byte) []int {
	groups := map[int]map[string][]byte{}
	for k, v := range files {
		i := shardOf(k)
		if groups[i] == nil {
			groups[i] = map[string][]byte{}
		}
		groups[i][k] = v
	}
	out := make([]int, 0, len(groups))
	for _, g := range groups {
		out = append(out, len(encodeShard(g)))
	}
	return out
}
