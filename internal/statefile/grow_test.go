package statefile

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// These tests use the package's exported functions only and name the
// files of the older format by hand, so that they run against the code
// before shards split (and fail there).

// testBound is the size no shard of two keys or more may pass (4 MiB).
const testBound = 4 << 20

// topShardOf returns the shard of depth 6 of key as the 64-shard format
// picks it: the first byte of its sha256, modulo 64.
func topShardOf(key string) int {
	sum := sha256.Sum256([]byte(key))
	return int(sum[0]) % 64
}

// keysOfShard returns n peer keys of the shard of depth 6 top, named
// after tag.
func keysOfShard(top, n int, tag string) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		if k := PeerFileName(fmt.Sprintf("https://%s%d.example/", tag, i)); topShardOf(k) == top {
			out = append(out, k)
		}
	}
	return out
}

// content returns size bytes of a key's content, one JSON line per
// kilobyte, different for each key and version.
func content(key string, version, size int) []byte {
	var b bytes.Buffer
	for b.Len() < size {
		fmt.Fprintf(&b, "{\"key\": %q, \"version\": %d, \"line\": %d, \"pad\": %q}\n", key, version, b.Len(), bytes.Repeat([]byte("x"), 900))
	}
	return b.Bytes()[:size]
}

// checkState checks that the split state at path holds exactly want, by
// Read, ReadOne and Names, and that no file of its directory passes the
// bound unless it holds a single key larger than it.
func checkState(t *testing.T, path string, want map[string][]byte) {
	t.Helper()
	if _, got, err := Read(path); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Read = %d keys, %v; want %d keys as written", len(got), err, len(want))
	}
	for k, v := range want {
		if got, err := ReadOne(path, k); err != nil || !bytes.Equal(got, v) {
			t.Fatalf("ReadOne(%s) = %d bytes, %v; want %d", k, len(got), err, len(v))
		}
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got, err := Names(path); err != nil || !reflect.DeepEqual(got, keys) {
		t.Fatalf("Names = %d keys, %v; want %d", len(got), err, len(keys))
	}
	largest := 0
	for _, v := range want {
		largest = max(largest, len(v))
	}
	for _, name := range listDir(t, Dir(path)) {
		info, err := os.Stat(filepath.Join(Dir(path), name))
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > testBound && info.Size() > int64(largest+len(shardHeader)+maxKeyLen+32) {
			t.Errorf("%s is %d bytes, past the bound of %d", name, info.Size(), testBound)
		}
	}
}

// TestShardPastTheBoundSplits: a shard whose keys grow past 4 MiB, by a
// Write of all of them or by Updates of a few at a time, becomes several
// files, each under the bound, and every key reads back as written.
func TestShardPastTheBoundSplits(t *testing.T) {
	keys := keysOfShard(0, 400, "grow")
	t.Run("Write", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ledger.json")
		want := map[string][]byte{}
		for _, k := range keys {
			want[k] = content(k, 1, 20<<10)
		}
		if _, err := Write(path, want); err != nil {
			t.Fatal(err)
		}
		checkState(t, path, want)
		if n := len(listDir(t, Dir(path))); n < 2 {
			t.Errorf("%d file for 8 MB of one shard, want it split", n)
		}
		if changed, err := Write(path, want); err != nil || changed {
			t.Errorf("Write of the same contents = %v, %v; want nothing written", changed, err)
		}
	})
	t.Run("Update", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ledger.json")
		want := map[string][]byte{}
		for start := 0; start < len(keys); start += 40 {
			set := map[string][]byte{}
			for _, k := range keys[start : start+40] {
				set[k] = content(k, 1, 20<<10)
				want[k] = set[k]
			}
			// A key written before changes too: its shard may have split.
			set[keys[0]] = content(keys[0], start, 20<<10)
			want[keys[0]] = set[keys[0]]
			var gone []string
			if start > 0 {
				gone = []string{keys[start-1]} // written by the Update before
				delete(want, keys[start-1])
			}
			if _, err := Update(path, set, nil, gone); err != nil {
				t.Fatal(err)
			}
			checkState(t, path, want)
		}
	})
}

// TestKeyLargerThanTheBoundIsAShardOfItsOwn: a key whose content alone
// passes the bound is a file of its own, and its shard's other keys are
// in files under the bound.
func TestKeyLargerThanTheBoundIsAShardOfItsOwn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	keys := keysOfShard(7, 200, "big")
	want := map[string][]byte{keys[0]: content(keys[0], 1, testBound+(1<<20))}
	for _, k := range keys[1:] {
		want[k] = content(k, 1, 20<<10)
	}
	if _, err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	checkState(t, path, want)
	// Grown by an Update, alone in its shard already or not.
	for _, k := range keys[:2] {
		set := map[string][]byte{k: content(k, 2, testBound+(2<<20))}
		if _, err := Update(path, set, nil, nil); err != nil {
			t.Fatal(err)
		}
		want[k] = set[k]
		checkState(t, path, want)
	}
}

// integShardName names shard i of the directory dir as the 64-shard
// format does: "shard-<i>_<8 hex>.peers", the hex the first four bytes
// of the sha256 of the directory's base name XORed with i.
func integShardName(dir string, i int) string {
	sum := sha256.Sum256([]byte(filepath.Base(dir)))
	return fmt.Sprintf("shard-%02d_%08x.peers", i, binary.BigEndian.Uint32(sum[:4])^uint32(i))
}

// integShard encodes files as the 64-shard format does.
func integShard(files map[string][]byte) []byte {
	var keys []string
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []byte("meshnode shard 1\n")
	for _, k := range keys {
		out = fmt.Appendf(out, "== %s %d\n%s", k, len(files[k]), files[k])
		if v := files[k]; len(v) == 0 || v[len(v)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	return out
}

// TestSixtyFourShardDirectoryIsReadAsItIs: a directory in the 64-shard
// format is read as it is, a write of what it holds writes nothing, and
// a shard that grows past the bound splits while the other 63 files stay
// the very files they were.
func TestSixtyFourShardDirectoryIsReadAsItIs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	dir := Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for i := range 64 {
		shard := map[string][]byte{}
		for _, k := range keysOfShard(i, 3, "old") {
			shard[k] = content(k, 0, 300)
			want[k] = shard[k]
		}
		if err := os.WriteFile(filepath.Join(dir, integShardName(dir, i)), integShard(shard), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := statDir(t, dir)
	checkState(t, path, want)
	if changed, err := Write(path, want); err != nil || changed {
		t.Fatalf("Write of what the directory holds = %v, %v; want nothing written", changed, err)
	}
	set := map[string][]byte{}
	for _, k := range keysOfShard(5, 300, "grow") {
		set[k] = content(k, 1, 20<<10)
		want[k] = set[k]
	}
	if _, err := Update(path, set, nil, nil); err != nil {
		t.Fatal(err)
	}
	checkState(t, path, want)
	after := statDir(t, dir)
	for name, info := range before {
		now, ok := after[name]
		switch {
		case name == integShardName(dir, 5):
			if ok {
				t.Errorf("%s, split, is still there", name)
			}
		case !ok || !os.SameFile(info, now) || !info.ModTime().Equal(now.ModTime()):
			t.Errorf("%s was rewritten, though its keys did not change", name)
		}
	}
}

// statDir returns what Lstat says of each file of dir, by name.
func statDir(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	for _, name := range listDir(t, dir) {
		info, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = info
	}
	return out
}
