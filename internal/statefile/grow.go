package statefile

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// A split directory's shards split as they grow (extendible hashing,
// docs/decisions.md "A split state's shards"). A key's bits are the first
// four bytes of its sha256 read least significant bit first (keyBits); a
// shard of depth d and number n holds the keys whose first d bits are n.
// The 64 shards of depth 6 (topDepth) are the 64 shards a directory
// started with, so a directory of an older node is read as it is. A write
// that would take a shard past maxShardSize replaces it by its two halves
// of depth d+1 (or deeper, until each fits), written first, the shard
// removed after. Reading, a key belongs to the deepest shard on disk
// whose prefix it has (layout.owner): a crash in a split leaves the
// halves, newer, next to the shard they replace, and they win.

// topDepth is the depth of the shards a directory starts with: Shards of
// them, the number the older nodes' shard names carry.
const topDepth = 6

// maxDepth bounds a shard's depth: 2^24 shards per directory, far past
// any mesh; a shard of this depth holding more than maxShardSize stays
// whole (only keys whose first 24 bits of sha256 collide are in it).
const maxDepth = 24

// maxShardSize is the size a write keeps every shard of two keys or more
// under, the size at which the ledger's segments close a part: far under
// the size a git host refuses (100 MB) or warns at (50 MB). A single
// key's content larger than it is a shard of its own.
const maxShardSize = 4 << 20

// prefix names a shard: the keys whose first d bits (keyBits) are n.
type prefix struct {
	d uint8
	n uint32
}

// keyBits returns the bits of key a shard's prefix is matched against.
func keyBits[K ~string | ~[]byte](key K) uint32 {
	sum := sha256.Sum256([]byte(key))
	return binary.LittleEndian.Uint32(sum[:4])
}

// prefixOf returns the prefix of depth d of the bits h.
func prefixOf(h uint32, d uint8) prefix {
	return prefix{d: d, n: h & (1<<d - 1)}
}

// has reports whether the bits h start with p.
func (p prefix) has(h uint32) bool { return prefixOf(h, p.d) == p }

// top returns the shard of depth 6 p lies under, the group Update and
// Rewrite work in.
func (p prefix) top() int { return int(p.n % Shards) }

// child returns the half of p whose next bit is bit.
func (p prefix) child(bit uint32) prefix {
	return prefix{d: p.d + 1, n: p.n | bit<<p.d}
}

// code is the number a shard's name XORs with its directory's mask: the
// number of a shard of depth 6, as older nodes named it; deeper, 2^d + n
// mixed by mix32, a bijection, so that every shard of a directory has
// its own code (none under 64, TestShardNamesAreCanonicalAndDifferInTheirLast16)
// and the codes of neighbouring shards differ in every hex digit: git's
// name hash of the last 16 characters adds the digits up, weighted by
// powers of 4, and codes that differ in their low bits only shared it
// one time in four (docs/decisions.md, "A split state's shards").
func (p prefix) code() uint32 {
	if p.d == topDepth {
		return p.n
	}
	return mix32(1<<p.d | p.n)
}

// mix32 is the finalizer of MurmurHash3, a bijection of uint32 that
// spreads each bit of its input over all of its output.
func mix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// String names p for a message: "<d>/<n in hex>".
func (p prefix) String() string { return fmt.Sprintf("%d/%x", p.d, p.n) }

// prefixName returns the file name of the shard p of the directory dir:
// "shard-<n, two digits>_<8 hex>.peers" at depth 6, as older nodes named
// them, and "shard-<d, two digits>-<n, (d+3)/4 hex digits>_<8 hex>.peers"
// deeper. The 8 hex digits are the directory's mask XORed with p's code,
// so that every shard of every directory differs from the others in its
// last 16 characters, the part of a path git's pack-objects hashes to
// find a file's previous version (names.go).
func prefixName(dir string, p prefix) string {
	return prefixNameMask(dirMask(dir), p)
}

// prefixNameMask is prefixName for the directory whose mask is mask,
// built without fmt: a probe (probe) names up to 19 shards a key.
func prefixNameMask(mask uint32, p prefix) string {
	var buf [40]byte
	b := append(buf[:0], "shard-"...)
	if p.d == topDepth {
		b = appendHex(append(b, byte('0'+p.n/10), byte('0'+p.n%10)), 0, 0)
	} else {
		b = append(b, byte('0'+p.d/10), byte('0'+p.d%10), '-')
		b = appendHex(b, p.n, hexDigits(p.d))
	}
	b = appendHex(append(b, '_'), mask^p.code(), 8)
	return string(append(b, ".peers"...))
}

// appendHex appends the width lowest hex digits of x, lowercase.
func appendHex(b []byte, x uint32, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		b = append(b, "0123456789abcdef"[x>>(4*uint(i))&0xf])
	}
	return b
}

func hexDigits(d uint8) int { return (int(d) + 3) / 4 }

// parsePrefix returns the shard a file name of the directory whose mask
// is mask is, and whether it is one: only the name prefixNameMask gives.
func parsePrefix(mask uint32, name string) (prefix, bool) {
	body, ok := strings.CutPrefix(name, "shard-")
	if !ok {
		return prefix{}, false
	}
	if body, ok = strings.CutSuffix(body, ".peers"); !ok || len(body) < 11 || body[len(body)-9] != '_' {
		return prefix{}, false
	}
	head := body[:len(body)-9]
	var p prefix
	if len(head) == 2 {
		n, err := strconv.ParseUint(head, 10, 8)
		if err != nil || n >= Shards {
			return prefix{}, false
		}
		p = prefix{d: topDepth, n: uint32(n)}
	} else {
		d, err := strconv.ParseUint(head[:min(2, len(head))], 10, 8)
		if err != nil || d <= topDepth || d > maxDepth || len(head) != 3+hexDigits(uint8(d)) || head[2] != '-' {
			return prefix{}, false
		}
		n, err := strconv.ParseUint(head[3:], 16, 32)
		if err != nil || n >= 1<<d {
			return prefix{}, false
		}
		p = prefix{d: uint8(d), n: uint32(n)}
	}
	return p, prefixNameMask(mask, p) == name
}

// layout is the shards a split directory holds, by prefix.
type layout struct {
	files map[prefix]bool
	inner map[prefix]bool // every prefix a shard on disk lies strictly under
}

func newLayout() layout {
	return layout{files: map[prefix]bool{}, inner: map[prefix]bool{}}
}

// add records the shard p as on disk.
func (l layout) add(p prefix) {
	l.files[p] = true
	for d := uint8(topDepth); d < p.d; d++ {
		l.inner[prefixOf(p.n, d)] = true
	}
}

// owner returns the shard whose content of a key of bits h is the key's:
// the deepest on disk whose prefix h has, and whether there is one. A
// shard deeper than another one holding the key was written after it, by
// a split a crash cut short.
func (l layout) owner(h uint32) (prefix, bool) {
	for d := uint8(maxDepth); d >= topDepth; d-- {
		if p := prefixOf(h, d); l.files[p] {
			return p, true
		}
	}
	return prefix{}, false
}

// leaf returns the shard a key of bits h is written to: from its shard of
// depth 6, the first prefix of h no shard on disk lies strictly under.
// In a directory no crash left half split it is the key's owner when it
// has one.
func (l layout) leaf(h uint32) prefix {
	p := prefixOf(h, topDepth)
	for l.inner[p] && p.d < maxDepth {
		p = prefixOf(h, p.d+1)
	}
	return p
}

// stale reports whether a shard of the group top lies under another shard
// on disk: a split a crash cut short, which the next write of the group
// finishes.
func (l layout) stale(top int) bool {
	for p := range l.files {
		if p.top() == top && l.inner[p] {
			return true
		}
	}
	return false
}

// group returns the shards of the group top on disk.
func (l layout) group(top int) []prefix {
	var out []prefix
	for p := range l.files {
		if p.top() == top {
			out = append(out, p)
		}
	}
	return out
}

// entrySize is how many bytes the entry of key holding content takes in
// a shard file (appendEntry).
func entrySize(key string, content []byte) int {
	n := len("== ") + len(key) + 1 + len(strconv.Itoa(len(content))) + 1 + len(content)
	if len(content) == 0 || content[len(content)-1] != '\n' {
		n++
	}
	return n
}

// shardSize is the size of the shard file holding files (encodeShard).
func shardSize(files map[string][]byte) int {
	n := len(shardHeader)
	for k, v := range files {
		n += entrySize(k, v)
	}
	return n
}

// pieces returns the shards that hold files, the contents of the shard p:
// p itself when it fits in maxShardSize or holds one key, else its
// halves' pieces, the empty ones left out.
func pieces(p prefix, files map[string][]byte) map[prefix]map[string][]byte {
	out := map[prefix]map[string][]byte{}
	addPieces(out, p, files)
	return out
}

func addPieces(out map[prefix]map[string][]byte, p prefix, files map[string][]byte) {
	if len(files) == 0 {
		return
	}
	if len(files) == 1 || p.d >= maxDepth || shardSize(files) <= maxShardSize {
		out[p] = files
		return
	}
	halves := [2]map[string][]byte{{}, {}}
	for k, v := range files {
		halves[keyBits(k)>>p.d&1][k] = v
	}
	addPieces(out, p.child(0), halves[0])
	addPieces(out, p.child(1), halves[1])
}
