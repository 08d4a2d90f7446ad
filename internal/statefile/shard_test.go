package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestShardRoundTripsEveryContentByteForByte: what a write stores under
// each key, Read and ReadOne return as it was, whatever it ends with or
// holds (a line that looks like an entry's), and a second write of the
// same contents writes nothing.
func TestShardRoundTripsEveryContentByteForByte(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polling-cursors.json")
	files := map[string][]byte{}
	for i, v := range []string{"", "\n", "no newline", "{\n  \"a\": 1\n}\n", "== x.json 3\nabc\n", "\n\n\n", "tab\tand\r\n"} {
		files[fmt.Sprintf("peer%d.example-0000000%d.json", i, i)] = []byte(v)
	}
	for i := range 200 {
		files[PeerFileName(fmt.Sprintf("https://p%d.example/", i))] = []byte(fmt.Sprintf("{\"seq\": %d}\n", i))
	}
	long := PeerFileName("https://" + strings.Repeat("long", 40) + ".example/")
	files[long[:len(long)-5]+strings.Repeat("x", maxKeyLen-len(long))+".json"] = []byte("a key of the longest kind\n")
	if changed, err := Write(path, files); err != nil || !changed {
		t.Fatalf("Write = %v, %v", changed, err)
	}
	if _, got, err := Read(path); err != nil || !reflect.DeepEqual(got, files) {
		t.Fatalf("Read = %v; differs from what was written (%d keys, want %d)", err, len(got), len(files))
	}
	for k, v := range files {
		if got, err := ReadOne(path, k); err != nil || !bytes.Equal(got, v) {
			t.Errorf("ReadOne(%s) = %q, %v; want %q", k, got, err, v)
		}
	}
	if got, err := Names(path); err != nil || len(got) != len(files) {
		t.Errorf("Names = %d keys, %v; want %d", len(got), err, len(files))
	}
	if n := len(listDir(t, Dir(path))); n > Shards {
		t.Errorf("%d files for %d keys, want at most %d shards", n, len(files), Shards)
	}
	if changed, err := Write(path, files); err != nil || changed {
		t.Errorf("Write of the same contents = %v, %v; want no change", changed, err)
	}
	if changed, err := Update(path, files, files, nil); err != nil || changed {
		t.Errorf("Update of the same contents = %v, %v; want no change", changed, err)
	}
}

// TestUnchangedHeartbeatWritesNothing: a Rewrite or Update of exactly
// what was read writes no shard and opens none (a heartbeat that
// changes nothing writes nothing); one changed key writes its shard only.
func TestUnchangedHeartbeatWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	files := map[string][]byte{}
	for i := range 300 {
		files[PeerFileName(fmt.Sprintf("https://p%d.example/", i))] = []byte(fmt.Sprintf("%d\n", i))
	}
	if _, err := Write(path, files); err != nil {
		t.Fatal(err)
	}
	var c Cache
	_, read, err := c.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var writes, opens []string
	t.Cleanup(SetWriteHook(func(p string, _ int) { writes = append(writes, p) }))
	t.Cleanup(SetReadHook(func(p string) { opens = append(opens, p) }))
	if changed, err := c.Rewrite(path, read, read); err != nil || changed {
		t.Errorf("Rewrite of what was read = %v, %v", changed, err)
	}
	if changed, err := c.Update(path, read, read, nil); err != nil || changed {
		t.Errorf("Update of what was read = %v, %v", changed, err)
	}
	if len(writes)+len(opens) != 0 {
		t.Errorf("an unchanged state wrote %v and opened %v", writes, opens)
	}
	key := PeerFileName("https://p7.example/")
	if changed, err := c.Update(path, map[string][]byte{key: []byte("new\n")}, read, nil); err != nil || !changed {
		t.Fatalf("Update of one key = %v, %v", changed, err)
	}
	if want := []string{shardPath(path, key)}; !reflect.DeepEqual(writes, want) {
		t.Errorf("one changed key wrote %v, want its shard %v", writes, want)
	}
	if got, err := ReadOne(path, PeerFileName("https://p8.example/")); err != nil || string(got) != "8\n" {
		t.Errorf("another key after the update = %q, %v", got, err)
	}
}

// TestCorruptPeerInAShardIsNamedWithShardAndKey: a store that cannot
// decode a key's contents reports the shard's path and the key.
func TestCorruptPeerInAShardIsNamedWithShardAndKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.json")
	key := PeerFileName("https://bob.example/")
	if _, err := Write(path, map[string][]byte{key: []byte("{\n  oops\n}\n")}); err != nil {
		t.Fatal(err)
	}
	data, _ := ReadOne(path, key)
	var v map[string]any
	err := Corrupt(FilePath(path, key), data, jsonUnmarshal(data, &v))
	msg := err.Error()
	if !strings.Contains(msg, PeerPath(path, "https://bob.example/")) || !strings.Contains(msg, "#"+key+":2:") {
		t.Errorf("error %q, want the shard's path, #, the key, and the line in its contents", msg)
	}
}

// TestHostileShardIsRefused: a shard file this code would not have
// written is refused with a *CorruptError that names it and says why,
// never half read.
func TestHostileShardIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	key := PeerFileName("https://a.example/")
	i := shardOf(key)
	var other string
	for n := 0; other == ""; n++ {
		if k := PeerFileName(fmt.Sprintf("https://x%d.example/", n)); shardOf(k) == i && k > key {
			other = k
		}
	}
	var wrong string
	for n := 0; wrong == ""; n++ {
		if k := PeerFileName(fmt.Sprintf("https://y%d.example/", n)); shardOf(k) != i {
			wrong = k
		}
	}
	entry := func(k, v string) string { return fmt.Sprintf("== %s %d\n%s", k, len(v), v) }
	for _, tc := range []struct{ name, data, why string }{
		{"not a shard", "{}\n", "not a shard file"},
		{"duplicate key", shardHeader + entry(key, "1\n") + entry(key, "2\n"), "sorted, each once"},
		{"unsorted", shardHeader + entry(other, "1\n") + entry(key, "2\n"), "sorted, each once"},
		{"key of another shard", shardHeader + entry(wrong, "1\n"), "is not of shard"},
		{"length past the end", shardHeader + "== " + key + " 99\nab\n", "bad length"},
		{"negative length", shardHeader + "== " + key + " -1\n", "bad length"},
		{"key with a slash", shardHeader + "== ../" + key + " 2\nab\n", "bad key"},
		{"no newline after content", shardHeader + "== " + key + " 2\nabX", "not followed by a newline"},
		{"huge", shardHeader + entry(key, "1\n"), "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.MkdirAll(Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(Dir(path), shardName(Dir(path), i))
			if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.name == "huge" {
				// Sparse: past the bound without filling the disk.
				if err := os.Truncate(p, maxShardBytes+1); err != nil {
					t.Fatal(err)
				}
			}
			_, files, err := Read(path)
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != p || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("Read = %d keys, %v; want a *CorruptError of %s saying %q", len(files), err, p, tc.why)
			}
			if _, err := Names(path); !errors.As(err, &ce) || ce.Path != p {
				t.Errorf("Names = %v, want a *CorruptError of %s", err, p)
			}
			if _, err := ReadOne(path, key); !errors.As(err, &ce) {
				t.Errorf("ReadOne = %v, want a *CorruptError", err)
			}
			if _, err := Update(path, map[string][]byte{key: []byte("x\n")}, nil, nil); !errors.As(err, &ce) {
				t.Errorf("Update over a hostile shard = %v, want a *CorruptError, the shard left alone", err)
			}
			if got, _ := os.ReadFile(p); tc.name != "huge" && string(got) != tc.data {
				t.Errorf("the hostile shard was changed")
			}
		})
	}
}

// FuzzDecodePeerShard: decodeShard never panics, and what it accepts
// encodes back to the same bytes and decodes to the same contents;
// scanKeys, which Names lists a shard with without reading its contents,
// accepts exactly what decodeShard accepts, with the same keys.
func FuzzDecodePeerShard(f *testing.F) {
	key := PeerFileName("https://a.example/")
	f.Add(encodeShard(map[string][]byte{key: []byte("{\"a\": 1}\n")}), shardOf(key))
	f.Add(encodeShard(map[string][]byte{key: []byte("no newline")}), shardOf(key))
	f.Add(encodeShard(map[string][]byte{key: nil}), shardOf(key))
	f.Add([]byte(shardHeader), 0)
	for i := Shards; i < 1<<20; i++ {
		if fuzzPrefix(i).d > topDepth+2 && fuzzPrefix(i).has(keyBits(key)) {
			f.Add(encodeShard(map[string][]byte{key: []byte("{\"deeper\": 1}\n")}), i) // a shard of depth 9
			break
		}
	}
	f.Add([]byte(shardHeader+"== a.json 2\nab\n== a.json 0\n\n"), -1)
	f.Add([]byte("== x"), 3)
	f.Fuzz(func(t *testing.T, data []byte, i int) {
		pre := fuzzPrefix(i)
		files, err := fuzzDecode(data, i)
		p := filepath.Join(t.TempDir(), "shard")
		if werr := os.WriteFile(p, data, 0o644); werr != nil {
			t.Fatal(werr)
		}
		keys, serr := scanKeys(p, pre)
		if i >= 0 && (err == nil) != (serr == nil) {
			t.Fatalf("decodeShard: %v; scanKeys: %v", err, serr)
		}
		if err != nil {
			return
		}
		if want := slices.Sorted(maps.Keys(files)); i >= 0 && !slices.Equal(keys, want) {
			t.Fatalf("scanKeys found the keys %q, decodeShard %q", keys, want)
		}
		again := encodeShard(files)
		if !bytes.Equal(again, data) {
			t.Fatalf("decode then encode changed the bytes:\n%q\n%q", data, again)
		}
		back, err := fuzzDecode(again, i)
		if err != nil || !reflect.DeepEqual(back, files) {
			t.Fatalf("re-decode = %v, %v", back, err)
		}
	})
}

// TestSpliceWritesWhatAFullEncodeWould: writing some keys into a shard
// and removing others, entry by entry, gives the bytes encodeShard gives
// for the contents so changed, and reports a change exactly when there
// is one.
func TestSpliceWritesWhatAFullEncodeWould(t *testing.T) {
	const shard = 5
	var keys []string
	for n := 0; len(keys) < 12; n++ {
		if k := PeerFileName(fmt.Sprintf("https://s%d.example/", n)); shardOf(k) == shard {
			keys = append(keys, k)
		}
	}
	have := map[string][]byte{}
	for _, k := range keys[:8] {
		have[k] = []byte(k + "\n")
	}
	for n, tc := range []struct {
		set  map[string][]byte
		gone []string
	}{
		{nil, nil},
		{map[string][]byte{keys[0]: []byte(keys[0] + "\n")}, nil},
		{map[string][]byte{keys[0]: []byte("changed")}, nil},
		{map[string][]byte{keys[9]: []byte("new first or last\n"), keys[10]: nil}, nil},
		{nil, []string{keys[0], keys[7], keys[11]}},
		{map[string][]byte{keys[3]: []byte("kept though said gone\n")}, []string{keys[3], keys[4]}},
	} {
		want := maps.Clone(have)
		for _, k := range tc.gone {
			delete(want, k)
		}
		maps.Copy(want, tc.set)
		got, changed, err := spliceShard(encodeShard(have), prefix{d: topDepth, n: shard}, tc.set, tc.gone)
		if err != nil || !bytes.Equal(got, encodeShard(want)) {
			t.Errorf("case %d: splice = %v\n%s\nwant\n%s", n, err, got, encodeShard(want))
		}
		if same := reflect.DeepEqual(encodeShard(want), encodeShard(have)); changed == same {
			t.Errorf("case %d: changed = %v, the contents changed: %v", n, changed, !same)
		}
	}
}

// fuzzPrefix maps the fuzzer's shard number to a shard: 0 to 63 the
// shards of depth 6, larger ones a deeper shard, a negative one any.
func fuzzPrefix(i int) prefix {
	if i < Shards {
		return prefix{d: topDepth, n: uint32(max(i, 0))}
	}
	d := uint8(topDepth + 1 + (i/Shards)%(maxDepth-topDepth))
	return prefix{d: d, n: uint32(i) & (1<<d - 1)}
}

// fuzzDecode is decodeShard of the shard fuzzPrefix(i), or of any shard
// when i is negative.
func fuzzDecode(data []byte, i int) (map[string][]byte, error) {
	if i >= 0 {
		return decodeShard(data, fuzzPrefix(i))
	}
	out := map[string][]byte{}
	err := walkShard(data, nil, func(key, content, _ []byte) { out[string(key)] = content })
	if err != nil {
		return nil, err
	}
	return out, nil
}
