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
func shardOf(key string) int {
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
	var i int
	if len(name) != len("shard-00_00000000.peers") || !strings.HasPrefix(name, "shard-") {
		return 0, false
	}
	i, err := strconv.Atoi(name[6:8])
	if err != nil || i < 0 || i >= Shards || shardName(dir, i) != name {
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
// file name (a base name ending in ".json", not hidden) without spaces or
// line breaks, at most maxKeyLen bytes.
func validKey(key string) bool {
	return len(key) <= maxKeyLen && filepath.Base(key) == key && strings.HasSuffix(key, ".json") &&
		!strings.HasPrefix(key, ".") && !strings.ContainsAny(key, " \t\r\n\\/")
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
		out = fmt.Appendf(out, "== %s %d\n", k, len(v))
		out = append(out, v...)
		if len(v) == 0 || v[len(v)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	return out
}

// decodeShard parses the shard file data, shard i of its directory, into
// its contents by key. The contents share data's bytes. It refuses a
// file that encodeShard would not have written: a key twice, out of
// order, of another shard or not a key, a length past the end.
func decodeShard(data []byte, i int) (map[string][]byte, error) {
	if len(data) > maxShardBytes {
		return nil, fmt.Errorf("shard of %d bytes, more than the %d accepted", len(data), maxShardBytes)
	}
	rest, ok := bytes.CutPrefix(data, []byte(shardHeader))
	if !ok {
		return nil, fmt.Errorf("line 1: not a shard file (want %q)", strings.TrimSpace(shardHeader))
	}
	out := map[string][]byte{}
	line, prev := 2, ""
	for len(rest) > 0 {
		key, content, next, err := decodeEntry(rest)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		switch {
		case prev != "" && key <= prev:
			return nil, fmt.Errorf("line %d: key %s after %s: keys must be sorted, each once", line, key, prev)
		case i >= 0 && shardOf(key) != i:
			return nil, fmt.Errorf("line %d: key %s belongs to shard %d, not %d", line, key, shardOf(key), i)
		}
		out[key] = content
		line += bytes.Count(rest[:len(rest)-len(next)], []byte{'\n'})
		prev, rest = key, next
	}
	return out, nil
}

// decodeEntry parses one "== <key> <n>" line and its content off the
// front of data, returning what follows.
func decodeEntry(data []byte) (key string, content, rest []byte, err error) {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return "", nil, nil, fmt.Errorf("entry line without its newline")
	}
	key, n, err := entryLine(data[:nl])
	if err != nil {
		return "", nil, nil, err
	}
	body := data[nl+1:]
	if n > int64(len(body)) {
		return "", nil, nil, fmt.Errorf("key %s: bad length %d (%d bytes left)", key, n, len(body))
	}
	size := int(n)
	content, rest = body[:size:size], body[size:]
	if size == 0 || content[size-1] != '\n' {
		if len(rest) == 0 || rest[0] != '\n' {
			return "", nil, nil, fmt.Errorf("key %s: content not followed by a newline", key)
		}
		rest = rest[1:]
	}
	return key, content, rest, nil
}

// entryLine parses an entry line without its newline: "== <key> <n>",
// n in decimal without leading zeros.
func entryLine(line []byte) (key string, n int64, err error) {
	head, ok := bytes.CutPrefix(line, []byte("== "))
	if !ok {
		return "", 0, fmt.Errorf("want \"== <key> <length>\", got %.40q", line)
	}
	k, num, ok := bytes.Cut(head, []byte(" "))
	key = string(k)
	if !ok || !validKey(key) {
		return "", 0, fmt.Errorf("bad key in %.60q", head)
	}
	n, err = strconv.ParseInt(string(num), 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != string(num) {
		return "", 0, fmt.Errorf("key %s: bad length %.20q", key, num)
	}
	return key, n, nil
}
