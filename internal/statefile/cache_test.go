package statefile

import (
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
