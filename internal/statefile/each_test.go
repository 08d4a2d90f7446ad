package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readEachAll gathers what ReadEach gives of the state at path, failing
// on a key given twice.
func readEachAll(path string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := ReadEach(path, func(key string, content []byte) error {
		if _, ok := out[key]; ok {
			return fmt.Errorf("key %s given twice", key)
		}
		out[key] = bytes.Clone(content)
		return nil
	})
	return out, err
}

// TestReadEachHoldsOneShardAtATime: ReadEach gives the keys and bytes
// Read gives (a shard's content of a key winning over a file per peer a
// node not migrated yet left, a key only in such a file given after the
// shards), ReadLegacy the old single file Read gives beside them; and
// ReadEach reads the next shard only once it gave every key of the one
// before, so that a caller decoding each content holds one shard's bytes
// at a time, not the whole directory's as Read's map does.
func TestReadEachHoldsOneShardAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	files := map[string][]byte{}
	for i := range 300 {
		k := PeerFileName(fmt.Sprintf("https://each%d.example/", i))
		files[k] = []byte(fmt.Sprintf("{\"peer\": %d}\n", i))
	}
	if _, err := Write(path, files); err != nil {
		t.Fatal(err)
	}
	inShard := PeerFileName("https://each0.example/")
	onlyFlat := PeerFileName("https://not-migrated.example/")
	oldNode(t, path, map[string]string{fileName(Dir(path), inShard): "older\n", fileName(Dir(path), onlyFlat): "flat\n"})
	if err := os.WriteFile(path, []byte("legacy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	legacy, want, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadLegacy(path); err != nil || !bytes.Equal(got, legacy) {
		t.Errorf("ReadLegacy = %q, %v; want %q, as Read gives it", got, err, legacy)
	}
	if string(want[inShard]) == "older\n" || string(want[onlyFlat]) != "flat\n" {
		t.Fatalf("Read: %q and %q; want the shard's content and the file's", want[inShard], want[onlyFlat])
	}

	shardReads, given := 0, map[string]int{} // shard reads done when each shard's first key came
	readHook = func(p string) {
		if strings.HasSuffix(p, ".peers") {
			shardReads++
		}
	}
	defer func() { readHook = nil }()
	l, err := list(Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	var last string
	if err := ReadEach(path, func(key string, content []byte) error {
		got[key] = bytes.Clone(content)
		if key == onlyFlat {
			last = key
			return nil
		}
		p, _ := l.lay.owner(keyBits(key))
		if _, ok := given[p.String()]; !ok {
			given[p.String()] = shardReads
		}
		if n := given[p.String()]; n != len(given) {
			return fmt.Errorf("key %s of the %d-th shard given after %d shard reads", key, len(given), n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadEach gave %d keys; want the %d Read gives", len(got), len(want))
	}
	if last != onlyFlat || len(given) != Shards || shardReads != Shards {
		t.Errorf("ReadEach: %d shards given, %d read, the file per peer's key given: %v; want %d, %d, true", len(given), shardReads, last == onlyFlat, Shards, Shards)
	}
}

// TestReadEachStopsAtItsCallersError: an error of fn ends ReadEach,
// which returns it as it is and gives no key after it.
func TestReadEachStopsAtItsCallersError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	files := map[string][]byte{}
	for i := range 20 {
		files[PeerFileName(fmt.Sprintf("https://stop%d.example/", i))] = []byte("{}\n")
	}
	if _, err := Write(path, files); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	calls := 0
	err := ReadEach(path, func(string, []byte) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Errorf("ReadEach = %v after %d calls; want the caller's error after 3", err, calls)
	}
}

// TestReadEachRefusesACorruptShard: a shard that does not decode is a
// *CorruptError naming it, as Read reports it.
func TestReadEachRefusesACorruptShard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	if _, err := Write(path, map[string][]byte{PeerFileName("https://a.example/"): []byte("{}\n")}); err != nil {
		t.Fatal(err)
	}
	names := listDir(t, Dir(path))
	bad := filepath.Join(Dir(path), names[0])
	if err := os.WriteFile(bad, []byte("not a shard\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := ReadEach(path, func(string, []byte) error { return nil })
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Path != bad {
		t.Errorf("ReadEach = %v; want a *CorruptError naming %s", err, bad)
	}
}
