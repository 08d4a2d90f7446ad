package statefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAnUpdateThatProbesDoesNotSplitAShardOverItsNewerHalf: a crash in a
// split left the shard p (depth 6) and its half c0 (depth 7, written with
// the crashed write's new content of A and a new key N), c1 not written
// yet. An Update of a key B under c1 finds p alone on B's path by probing;
// B takes p past the bound, so p must split: the Update lists the
// directory first and finishes the split, rather than cut p's older
// contents into pieces over c0 (errMustList).
func TestAnUpdateThatProbesDoesNotSplitAShardOverItsNewerHalf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	top := prefix{d: topDepth, n: 9}
	keys := keysOfShard(9, 400, "rev")
	var side0, side1 []string
	for _, k := range keys {
		if keyBits(k)>>topDepth&1 == 0 {
			side0 = append(side0, k)
		} else {
			side1 = append(side1, k)
		}
	}
	a, n, b := side0[0], side0[1], side1[0]
	old := map[string][]byte{}
	size := 0
	for i, k := range append(side0[2:], side1[1:]...) {
		if size > maxShardSize-200<<10 {
			break
		}
		old[k] = content(k, 0, 20<<10)
		size += 20<<10 + 100
		_ = i
	}
	old[a] = []byte("A old\n")
	writeRaw(t, path, top, old)
	half := map[string][]byte{a: []byte("A new\n"), n: []byte("N new\n")}
	for k, v := range old {
		if top.child(0).has(keyBits(k)) && k != a && k != side0[2] {
			half[k] = v
		}
	}
	writeRaw(t, path, top.child(0), half)
	_, got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got[side0[2]] != nil {
		t.Fatalf("G removed by the crashed write reads back")
	}
	if !bytes.Equal(got[a], []byte("A new\n")) || got[n] == nil {
		t.Fatalf("after the crash: A=%q N=%q", got[a], got[n])
	}
	if _, err := Update(path, map[string][]byte{b: content(b, 1, 400<<10)}, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, got, err = Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[a], []byte("A new\n")) || got[n] == nil {
		t.Errorf("after an Update of B alone: G (removed) is back: %v", got[side0[2]] != nil)
		t.Errorf("after an Update of B alone: A=%q (was \"A new\"), N=%q (was \"N new\")", got[a], got[n])
	}
}

// TestAShardNameThatIsALinkIsRefusedUnread: a shard's name on a key's
// path that is a symbolic link is refused without opening its target,
// whose size the check of the name's size does not see (/dev/zero has no
// end).
func TestAShardNameThatIsALinkIsRefusedUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	dir := Dir(path)
	key := keysOfShard(5, 1, "sym")[0]
	big := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(shardHeader)
	f.Truncate(80 << 20)
	f.Close()
	os.MkdirAll(dir, 0o755)
	if err := os.Symlink(big, filepath.Join(dir, prefixName(dir, prefixOf(keyBits(key), topDepth)))); err != nil {
		t.Fatal(err)
	}
	opened := false
	readHook = func(string) { opened = true }
	defer func() { readHook = nil }()
	_, err = ReadOne(path, key)
	if !errors.Is(err, errNotRegular) {
		t.Errorf("ReadOne through a link: %v, want a refusal of a file that is not regular", err)
	}
	if opened {
		t.Errorf("the link's 80 MiB target was opened and read whole before being refused")
	}
}

// TestASplitStateUnchangedWritesNothing: every kind of write of what a
// split state holds already, a key past the bound included, writes
// nothing and reports no change.
func TestASplitStateUnchangedWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	keys := keysOfShard(7, 400, "same")
	files := map[string][]byte{}
	for i, k := range keys {
		files[k] = content(k, 0, 20<<10)
		if i == 0 {
			files[k] = content(k, 0, 5<<20) // one key over the bound
		}
	}
	if _, err := Write(path, files); err != nil {
		t.Fatal(err)
	}
	writes := 0
	writeHook = func(string, int) { writes++ }
	defer func() { writeHook = nil }()
	var c Cache
	for name, run := range map[string]func() (bool, error){
		"Write":          func() (bool, error) { return Write(path, files) },
		"Rewrite was":    func() (bool, error) { return Rewrite(path, files, files) },
		"Update nil was": func() (bool, error) { return Update(path, files, nil, nil) },
		"Cache.Update":   func() (bool, error) { return c.Update(path, files, nil, nil) },
		"Update gone absent": func() (bool, error) {
			return Update(path, nil, nil, []string{"absent.example-00000000.json"})
		},
	} {
		changed, err := run()
		if err != nil || changed || writes != 0 {
			t.Errorf("%s: changed=%v writes=%d err=%v", name, changed, writes, err)
		}
	}
	checkState(t, path, files)
}

// TestAShardNameThatIsAPipeIsRefusedWithoutBlocking: a named pipe at a
// shard's name would block a read for ever.
func TestAShardNameThatIsAPipeIsRefusedWithoutBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	dir := Dir(path)
	os.MkdirAll(dir, 0o755)
	key := keysOfShard(5, 1, "fifo")[0]
	fifo := filepath.Join(dir, prefixName(dir, prefixOf(keyBits(key), topDepth)))
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Update(path, map[string][]byte{key: []byte("x\n")}, nil, nil); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, errNotRegular) {
			t.Errorf("Update through a pipe: %v, want a refusal of a file that is not regular", err)
		}
	case <-time.After(2 * time.Second):
		f, _ := os.OpenFile(fifo, os.O_WRONLY, 0) // unblock the reader
		f.Close()
		<-done
		t.Errorf("Update blocked on a FIFO named as a shard (Read lists only regular files and skips it)")
	}
}

// TestCacheReadOneFindsAKeyMovedWithinOneTickOfTheDirectorysTime: on a
// file system whose directory times are coarse (ext4 before Linux 6.13
// ticks per jiffy; FAT and network file systems coarser), another process
// splits a shard after the Cache listed the directory, and the directory's
// time does not move: a key not found where the listing said is looked
// for again by its path.
func TestCacheReadOneFindsAKeyMovedWithinOneTickOfTheDirectorysTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	dir := Dir(path)
	keys := keysOfShard(3, 300, "tick")
	var c Cache
	if _, err := Update(path, map[string][]byte{keys[0]: []byte("small\n")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ReadOne(path, keys[0]); string(got) != "small\n" {
		t.Fatal("setup")
	}
	before, _ := os.Lstat(dir)
	want := map[string][]byte{}
	for _, k := range keys {
		want[k] = content(k, 1, 20<<10)
	}
	if _, err := Update(path, want, nil, nil); err != nil { // another process
		t.Fatal(err)
	}
	after, _ := os.Lstat(dir)
	os.Chtimes(dir, before.ModTime(), before.ModTime())
	if before.Size() != after.Size() {
		t.Skipf("the directory's size moved (%d to %d): the listing is read again anyway", before.Size(), after.Size())
	}
	got, err := c.ReadOne(path, keys[0])
	if err != nil || !bytes.Equal(got, want[keys[0]]) {
		t.Errorf("ReadOne through the Cache = %d bytes, %v; want %d: the listing of the same mtime was trusted", len(got), err, len(want[keys[0]]))
	}
}
