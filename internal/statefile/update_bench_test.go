package statefile

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkUpdateOneKeyOf1000: what a save of one changed peer costs in
// a state of 1,000 peers (64 shards, none split): finding its shard and
// rewriting it. It uses the exported functions only, so that it runs
// against the code before shards split too.
func BenchmarkUpdateOneKeyOf1000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ledger.json")
	files := map[string][]byte{}
	var keys []string
	for i := range 1000 {
		k := PeerFileName(fmt.Sprintf("https://p%d.example/", i))
		keys = append(keys, k)
		files[k] = []byte(fmt.Sprintf("{\"seq\": %d, \"pad\": %q}\n", i, make([]byte, 300)))
	}
	if _, err := Write(path, files); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := keys[i%len(keys)]
		if _, err := Update(path, map[string][]byte{k: []byte(fmt.Sprintf("{\"seq\": %d}\n", i))}, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadOneOf1000 is ReadOne of one key of a state of 1,000 peers.
func BenchmarkReadOneOf1000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ledger.json")
	files := map[string][]byte{}
	var keys []string
	for i := range 1000 {
		k := PeerFileName(fmt.Sprintf("https://p%d.example/", i))
		keys = append(keys, k)
		files[k] = []byte(fmt.Sprintf("{\"seq\": %d}\n", i))
	}
	if _, err := Write(path, files); err != nil {
		b.Fatal(err)
	}
	var c Cache
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := c.ReadOne(path, keys[i%len(keys)]); err != nil {
			b.Fatal(err)
		}
	}
}
