package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"
)

func TestPeerFileNameIsReadableAndDistinct(t *testing.T) {
	a := PeerFileName("https://ada.example/traces/")
	b := PeerFileName("https://ada.example/traces")
	if a == b {
		t.Fatalf("two URLs share the file %s", a)
	}
	if want := "ada.example-traces-"; a[:len(want)] != want || filepath.Ext(a) != ".json" {
		t.Errorf("PeerFileName = %s, want a slug of the URL then a hash, .json", a)
	}
	if got := PeerFileName("https://"); got[:5] != "peer-" {
		t.Errorf("PeerFileName of an empty slug = %s, want peer-<hash>.json", got)
	}
}

func TestWriteThenReadRoundTripsAndMigratesTheSingleFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	if err := os.WriteFile(path, []byte(`{"old":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	legacy, files, err := Read(path)
	if err != nil || string(legacy) != `{"old":true}` || len(files) != 0 {
		t.Fatalf("Read before a write = %q, %v, %v", legacy, files, err)
	}
	want := map[string][]byte{"a.json": []byte("1\n"), "b.json": []byte("2\n")}
	changed, err := Write(path, want)
	if err != nil || !changed {
		t.Fatalf("Write = %v, %v; want a change", changed, err)
	}
	legacy, files, err = Read(path)
	if err != nil || legacy != nil || !reflect.DeepEqual(files, want) {
		t.Fatalf("Read after Write = %q, %v, %v; want no single file and %v", legacy, files, err, want)
	}
	if changed, err := Write(path, want); err != nil || changed {
		t.Fatalf("Write of the same files = %v, %v; want no change", changed, err)
	}
	if changed, err := Write(path, map[string][]byte{"a.json": []byte("1\n")}); err != nil || !changed {
		t.Fatalf("Write without b = %v, %v; want b removed", changed, err)
	}
	if _, err := os.Stat(filepath.Join(Dir(path), "b.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("b.json after it left the state: %v", err)
	}
}

func TestCorruptNamesLineAndColumn(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  oops\n}")
	var v map[string]int
	err := Corrupt("x.json", data, jsonUnmarshal(data, &v))
	if err.Line != 3 || err.Column != 3 {
		t.Fatalf("Corrupt = %v at %d:%d, want 3:3", err, err.Line, err.Column)
	}
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// TestReadFileInfoAllocatesTheFileOnce reads a 64 KiB state file and
// wants about its size allocated: bytes.Buffer.ReadFrom grew each file's
// buffer to twice its size to find the end.
func TestReadFileInfoAllocatesTheFileOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "part.json")
	data := bytes.Repeat([]byte("x"), 64<<10)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		got, _, err := readFileInfo(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("read %d bytes (err %v), want %d", len(got), err, len(data))
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > uint64(len(data))*5/4 {
		t.Errorf("reading a %d-byte file allocated %d bytes", len(data), per)
	}
}

func TestWriteHookIsToldEachFileWrittenOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	was := map[string][]byte{"a.json": []byte("1\n"), "b.json": []byte("2\n")}
	if _, err := Write(path, was); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	told := map[string]int{}
	t.Cleanup(SetWriteHook(func(p string, size int) {
		mu.Lock()
		defer mu.Unlock()
		told[filepath.Base(p)] += size
	}))
	files := map[string][]byte{"a.json": []byte("1\n"), "b.json": []byte("22\n"), "c.json": []byte("333\n")}
	if _, err := Rewrite(path, files, was); err != nil {
		t.Fatal(err)
	}
	if _, err := Update(path, map[string][]byte{"d.json": []byte("4\n")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	// a, b, c and d are in four shards: a's is left alone.
	want := map[string]int{}
	for k, v := range map[string]string{"b.json": "22\n", "c.json": "333\n", "d.json": "4\n"} {
		want[filepath.Base(shardPath(path, k))] = len(encodeShard(map[string][]byte{k: []byte(v)}))
	}
	if !reflect.DeepEqual(told, want) {
		t.Errorf("the hook was told %v, want %v (a.json's shard unchanged)", told, want)
	}
}

// TestManyChangedPeersRewriteAFewFiles: a write in which 300 peers
// changed rewrites at most 64 files (their shards), not a file per peer,
// and reads back every peer's new bytes; a second identical write writes
// nothing.
func TestManyChangedPeersRewriteAFewFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	files := map[string][]byte{}
	for i := range 300 {
		files[PeerFileName(fmt.Sprintf("https://p%d.example/", i))] = []byte(fmt.Sprintf("{\"v\": %d}\n", i))
	}
	if _, err := Write(path, files); err != nil {
		t.Fatal(err)
	}
	next := map[string][]byte{}
	for k, v := range files {
		next[k] = append([]byte("{\"new\": true}\n"), v...)
	}
	var mu sync.Mutex
	written := map[string]bool{}
	t.Cleanup(SetWriteHook(func(p string, _ int) {
		mu.Lock()
		written[p] = true
		mu.Unlock()
	}))
	if changed, err := Update(path, next, files, nil); err != nil || !changed {
		t.Fatalf("Update = %v, %v", changed, err)
	}
	if len(written) > 64 {
		t.Errorf("300 changed peers wrote %d files, want at most 64", len(written))
	}
	if _, got, err := Read(path); err != nil || !reflect.DeepEqual(got, next) {
		t.Errorf("Read after the update: %v, or contents differ", err)
	}
	clear(written)
	if changed, err := Update(path, next, nil, nil); err != nil || changed || len(written) != 0 {
		t.Errorf("the same update again = %v, %v, wrote %d files", changed, err, len(written))
	}
}
