package statefile

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

// TestCacheOpensOnlyWhatChanged: a Read through a Cache opens the shards
// the cache does not hold as they are on disk, and only those: none again
// after its own read or write, the one another writer replaced (a new
// file renamed over it, as Write does), and a removed one is gone.
func TestCacheOpensOnlyWhatChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.json")
	if _, err := Write(path, map[string][]byte{"a.json": []byte("a1"), "b.json": []byte("b1"), "c.json": []byte("c1")}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex // Write reads files on several goroutines
	opened := map[string]int{}
	t.Cleanup(SetReadHook(func(p string) {
		mu.Lock()
		opened[filepath.Base(p)]++
		mu.Unlock()
	}))
	var c Cache
	read := func(want map[string]string) map[string]int {
		t.Helper()
		mu.Lock()
		clear(opened)
		mu.Unlock()
		_, files, err := c.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for name, data := range files {
			got[name] = string(data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read %v, want %v", got, want)
		}
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(opened)
	}
	sh := func(key string) string { return filepath.Base(shardPath(path, key)) }
	all := map[string]string{"a.json": "a1", "b.json": "b1", "c.json": "c1"}
	if got := read(all); !reflect.DeepEqual(got, map[string]int{sh("a.json"): 1, sh("b.json"): 1, sh("c.json"): 1}) {
		t.Errorf("first read opened %v, want each file once", got)
	}
	if got := read(all); len(got) != 0 {
		t.Errorf("second read opened %v, want nothing", got)
	}
	// Written through the cache: not opened again.
	if _, err := c.Rewrite(path, map[string][]byte{"a.json": []byte("a2"), "b.json": []byte("b1"), "c.json": []byte("c1")},
		map[string][]byte{"a.json": []byte("a1"), "b.json": []byte("b1"), "c.json": []byte("c1")}); err != nil {
		t.Fatal(err)
	}
	all["a.json"] = "a2"
	if got := read(all); len(got) != 0 {
		t.Errorf("read after the cache's own write opened %v, want nothing", got)
	}
	// Another writer replaces b with bytes of the same size and removes c.
	if _, err := Write(path, map[string][]byte{"a.json": []byte("a2"), "b.json": []byte("b2")}); err != nil {
		t.Fatal(err)
	}
	if got := read(map[string]string{"a.json": "a2", "b.json": "b2"}); !reflect.DeepEqual(got, map[string]int{sh("b.json"): 1}) {
		t.Errorf("read after another writer opened %v, want b.json once", got)
	}
	// A file changed in place, same inode, another size.
	if err := os.WriteFile(shardPath(path, "a.json"), encodeShard(map[string][]byte{"a.json": []byte("a3-longer")}), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(map[string]string{"a.json": "a3-longer", "b.json": "b2"}); !reflect.DeepEqual(got, map[string]int{sh("a.json"): 1}) {
		t.Errorf("read after an edit in place opened %v, want a.json once", got)
	}
}

// TestCacheReadOneSeesShardsSplitSinceItListed: ReadOne through a Cache
// finds a key in the half its shard split into after the Cache listed
// the directory, and a key written anew after the split.
func TestCacheReadOneSeesShardsSplitSinceItListed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	keys := keysOfShard(3, 300, "cached")
	var c Cache
	if _, err := c.Update(path, map[string][]byte{keys[0]: []byte("small\n")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := c.ReadOne(path, keys[0]); err != nil || string(got) != "small\n" {
		t.Fatalf("ReadOne = %q, %v", got, err)
	}
	want := map[string][]byte{}
	for _, k := range keys {
		want[k] = content(k, 1, 20<<10)
	}
	if _, err := Update(path, want, nil, nil); err != nil { // not through c
		t.Fatal(err)
	}
	for _, k := range keys[:20] {
		if got, err := c.ReadOne(path, k); err != nil || !bytes.Equal(got, want[k]) {
			t.Fatalf("ReadOne(%s) through the Cache after a split = %d bytes, %v; want %d", k, len(got), err, len(want[k]))
		}
	}
	checkState(t, path, want)
}
