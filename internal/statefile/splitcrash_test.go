package statefile

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestCrashAtEachStepOfASplitLosesNothing: a write that splits a shard
// writes its pieces one by one, then removes the shard. A crash after
// any of those steps (any set of the pieces on disk, the old shard still
// there) leaves a state in which each key reads as it was before the
// write or as the write made it, a removed key is never back once its
// piece is on disk, and the next Write, Rewrite or Migrate, or Update of
// keys under the pieces, finishes the split: the state is what it should
// be, no shard lies under another, and every file is under the bound.
func TestCrashAtEachStepOfASplitLosesNothing(t *testing.T) {
	top := prefix{d: topDepth, n: 9}
	keys := keysOfShard(9, 230, "crash")
	old := map[string][]byte{}
	for _, k := range keys[:200] {
		old[k] = content(k, 0, 20<<10)
	}
	changed := maps.Clone(old)
	delete(changed, keys[3])
	changed[keys[4]] = content(keys[4], 1, 20<<10)
	for _, k := range keys[200:] {
		changed[k] = content(k, 1, 20<<10)
	}
	split := pieces(top, changed)
	if len(split) < 2 {
		t.Fatalf("%d pieces; the test wants a split", len(split))
	}
	order := sortedPrefixes(split)
	finishers := []struct {
		name string
		run  func(path string, read map[string][]byte) (map[string][]byte, error)
	}{
		{"Update of a key under each half", func(path string, read map[string][]byte) (map[string][]byte, error) {
			set := map[string][]byte{}
			for _, p := range order {
				for _, k := range keys[5:] {
					if p.has(keyBits(k)) {
						set[k] = []byte("after the crash\n")
						break
					}
				}
			}
			want := maps.Clone(read)
			maps.Copy(want, set)
			_, err := Update(path, set, nil, nil)
			return want, err
		}},
		{"Rewrite of what was read", func(path string, read map[string][]byte) (map[string][]byte, error) {
			_, err := Rewrite(path, changed, read)
			return changed, err
		}},
		{"Write", func(path string, _ map[string][]byte) (map[string][]byte, error) {
			_, err := Write(path, changed)
			return changed, err
		}},
		{"Migrate then Update", func(path string, _ map[string][]byte) (map[string][]byte, error) {
			if _, err := Migrate(path); err != nil {
				return nil, err
			}
			_, err := Update(path, changed, nil, []string{keys[3]})
			return changed, err
		}},
	}
	for written := range len(order) + 1 {
		for _, fin := range finishers {
			t.Run(fmt.Sprintf("%d of %d pieces written, then %s", written, len(order), fin.name), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "ledger.json")
				writeRaw(t, path, top, old)
				for _, p := range order[:written] {
					writeRaw(t, path, p, split[p])
				}
				_, got, err := Read(path)
				if err != nil {
					t.Fatal(err)
				}
				wantAfterCrash(t, got, old, changed, order[:written])
				want, err := fin.run(path, got)
				if err != nil {
					t.Fatal(err)
				}
				checkState(t, path, want)
				checkNoStale(t, path)
			})
		}
	}
}

// wantAfterCrash checks that each key of got is as it was in old, or as
// in changed when the piece its bits fall in is among written.
func wantAfterCrash(t *testing.T, got, old, changed map[string][]byte, written []prefix) {
	t.Helper()
	want := maps.Clone(old)
	for _, p := range written {
		for k := range old {
			if p.has(keyBits(k)) {
				delete(want, k)
			}
		}
		for k, v := range changed {
			if p.has(keyBits(k)) {
				want[k] = v
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the crash Read = %d keys, want %d: each as before or as written by its piece", len(got), len(want))
	}
}

// checkNoStale checks that no shard of the state at path lies under
// another.
func checkNoStale(t *testing.T, path string) {
	t.Helper()
	l, err := list(Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if l.shadowed() {
		t.Errorf("a shard lies under another after the write: %v", listDir(t, Dir(path)))
	}
}

// writeRaw writes the shard p of the state at path holding files.
func writeRaw(t *testing.T, path string, p prefix, files map[string][]byte) {
	t.Helper()
	dir := Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, prefixName(dir, p)), encodeShard(files), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedPrefixes(m map[prefix]map[string][]byte) []prefix {
	var out []prefix
	for p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(a, b int) bool { return prefixName("x", out[a]) < prefixName("x", out[b]) })
	return out
}

// TestOverlappingShardsTheDeeperWins: shards of overlapping prefixes
// (as a crash in a split leaves them, or a hand edit) holding the same
// key with different contents: the deeper one's content is the key's,
// and a key only the shallower one holds, in a range the deeper one
// covers, is gone (the deeper one was written after it).
func TestOverlappingShardsTheDeeperWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.json")
	top := prefix{d: topDepth, n: 12}
	keys := keysOfShard(12, 40, "overlap")
	var in, out []string // under the child of depth 8 of keys[0], and not
	child := prefixOf(keyBits(keys[0]), 8)
	for _, k := range keys {
		if child.has(keyBits(k)) {
			in = append(in, k)
		} else {
			out = append(out, k)
		}
	}
	if len(in) < 2 || len(out) < 1 {
		t.Fatalf("keys: %d in, %d out", len(in), len(out))
	}
	writeRaw(t, path, top, map[string][]byte{in[0]: []byte("parent\n"), in[1]: []byte("dropped\n"), out[0]: []byte("parent only\n")})
	writeRaw(t, path, child, map[string][]byte{in[0]: []byte("child\n")})
	want := map[string][]byte{in[0]: []byte("child\n"), out[0]: []byte("parent only\n")}
	checkState(t, path, want)
	// A key with one shard on its path is written there (its owner), the
	// overlap left alone; a key under both finishes it.
	for _, k := range []string{out[1], in[2]} {
		if _, err := Update(path, map[string][]byte{k: []byte("new\n")}, nil, nil); err != nil {
			t.Fatal(err)
		}
		want[k] = []byte("new\n")
		checkState(t, path, want)
	}
	checkNoStale(t, path)
}

// TestKeyOutsideItsShardsPrefixIsRefused: a shard holding a key whose
// bits do not start with its prefix is refused with a *CorruptError that
// names the file and the key, by every reader and writer.
func TestKeyOutsideItsShardsPrefixIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	keys := keysOfShard(20, 40, "outside")
	p := prefixOf(keyBits(keys[0]), 7)
	var stray string
	for _, k := range keys {
		if !p.has(keyBits(k)) {
			stray = k
			break
		}
	}
	writeRaw(t, path, p, map[string][]byte{keys[0]: []byte("a\n"), stray: []byte("b\n")})
	file := filepath.Join(Dir(path), prefixName(Dir(path), p))
	var ce *CorruptError
	check := func(what string, err error) {
		t.Helper()
		if !errors.As(err, &ce) || ce.Path != file || !strings.Contains(err.Error(), stray) || !strings.Contains(err.Error(), "is not of shard 7/") {
			t.Errorf("%s = %v; want a *CorruptError of %s naming %s", what, err, file, stray)
		}
	}
	_, _, err := Read(path)
	check("Read", err)
	_, err = Names(path)
	check("Names", err)
	_, err = ReadOne(path, keys[0])
	check("ReadOne", err)
	_, err = Update(path, map[string][]byte{keys[0]: []byte("c\n")}, nil, nil)
	check("Update", err)
	_, err = Write(path, map[string][]byte{keys[0]: []byte("c\n")})
	check("Write", err)
}

// TestShardNamesAreCanonicalAndDifferInTheirLast16: every shard name of
// depth 6 to 12 parses back to its shard, names that are not exactly
// what prefixName gives are not shards, and no two shards of any split
// directory share their last 16 characters (git's name hash): a deeper
// shard's code is never one of depth 6's.
func TestShardNamesAreCanonicalAndDifferInTheirLast16(t *testing.T) {
	last16 := map[string]string{}
	for _, d := range splitDirs {
		dir := "mesh-state/" + d
		for depth := uint8(topDepth); depth <= 12; depth++ {
			for n := range uint32(1) << depth {
				p := prefix{d: depth, n: n}
				name := prefixName(dir, p)
				if got, ok := parsePrefix(dirMask(dir), name); !ok || got != p {
					t.Fatalf("parsePrefix(%s) = %v, %v; want %v", name, got, ok, p)
				}
				tail := name[len(name)-16:]
				if other, ok := last16[tail]; ok {
					t.Fatalf("%s/%s and %s share their last 16 characters", dir, name, other)
				}
				last16[tail] = dir + "/" + name
			}
		}
	}
	for x := uint32(1 << (topDepth + 1)); x < 1<<(maxDepth+1); x++ {
		if mix32(x) < Shards {
			t.Fatalf("the code of a deeper shard, mix32(%#x), is %d, a code of depth 6", x, mix32(x))
		}
	}
	dir := "mesh-state/ledger"
	mask := dirMask(dir)
	for _, name := range []string{
		strings.ToUpper(prefixName(dir, prefix{d: 9, n: 0x1ab})),
		prefixName("mesh-state/queue", prefix{d: 9, n: 5}),
		fmt.Sprintf("shard-06-05_%s.peers", hexOf(mask^5)),
		fmt.Sprintf("shard-07-005_%s.peers", hexOf(mask^mix32(1<<7|5))),
		fmt.Sprintf("shard-07-80_%s.peers", hexOf(mask^mix32(1<<7|0x80))),
		fmt.Sprintf("shard-07-05_%s.peers", hexOf(mask^(1<<7|5))),
		fmt.Sprintf("shard-25-0000005_%s.peers", hexOf(mask^5)),
		fmt.Sprintf("shard-64_%s.peers", hexOf(mask^64)),
		"shard-07-05_00000000.peers.tmp",
	} {
		if p, ok := parsePrefix(mask, name); ok {
			t.Errorf("parsePrefix(%s) = %v, want not a shard", name, p)
		}
	}
}

// TestDeeperShardNamesSpreadOverGitsNameHash: git's name hash of a path's
// last 16 characters adds their bytes up, weighted by powers of 4, so
// names that differ in a few hex digits share it often. Over the shards
// of depth 6 to 8 of every split directory (3,584 names), at most 2 in
// 100 share their hash with another; with a shard's code 2^d + n XORed
// into the mask unmixed, 1,131 did.
func TestDeeperShardNamesSpreadOverGitsNameHash(t *testing.T) {
	seen := map[uint32]bool{}
	names, shared := 0, 0
	for _, d := range splitDirs {
		dir := "mesh-state/" + d
		for depth := uint8(topDepth); depth <= 8; depth++ {
			for n := range uint32(1) << depth {
				h := gitNameHash(dir + "/" + prefixName(dir, prefix{d: depth, n: n}))
				if seen[h] {
					shared++
				}
				seen[h] = true
				names++
			}
		}
	}
	t.Logf("%d names, %d share a git name hash with another", names, shared)
	if shared*100 > names*2 {
		t.Errorf("%d of %d names share a git name hash with another, want at most 2 in 100", shared, names)
	}
}
