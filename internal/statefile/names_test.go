package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// gitNameHash is git's pack_name_hash (builtin/pack-objects.c, version 1,
// git 2.39): a path's last 16 characters, the last counting most. A thin
// pack looks up the previous version of a path to delta it against once
// per such hash.
func gitNameHash(path string) uint32 {
	var h uint32
	for _, c := range []byte(path) {
		if c == ' ' || (c >= '\t' && c <= '\r') {
			continue
		}
		h = (h >> 2) + uint32(c)<<24
	}
	return h
}

var splitDirs = []string{"ledger", "queue", "queue-settled", "polling-cursors", "polling-cursors-seen", "copies", "relays", "log-pins"}

// TestShardFilesHaveAGitNameHashOfTheirOwn: every shard of every split
// directory has a git name hash of its own, so that git finds each
// one's previous version to delta it against; under one shared hash
// only one of them would, and the others would be pushed whole. A
// peer's shards in the several directories are among them.
func TestShardFilesHaveAGitNameHashOfTheirOwn(t *testing.T) {
	all := map[uint32]string{}
	for _, d := range splitDirs {
		for i := range Shards {
			dir := "mesh-state/" + d
			p := filepath.ToSlash(filepath.Join(dir, shardName(dir, i)))
			h := gitNameHash(p)
			if other, ok := all[h]; ok {
				t.Fatalf("%s and %s share git's name hash %08x: one of them is pushed whole", p, other, h)
			}
			all[h] = p
			if got, ok := shardIndex(dir, filepath.Base(p)); !ok || got != i {
				t.Errorf("shardIndex(%s) = %d, %v; want %d", p, got, ok, i)
			}
		}
	}
	u := "https://ada.example/traces/"
	if got, want := PeerPath("mesh-state/ledger.json", u), filepath.Join("mesh-state/ledger", shardName("mesh-state/ledger", shardOf(PeerFileName(u)))); got != want {
		t.Errorf("PeerPath = %s, want its shard %s", got, want)
	}
}

// TestFlatPeerFilesHaveAGitNameHashOfTheirOwn: copies/ keeps a file per
// peer, and a peer's files named as the nodes before shards named them
// differ in their name hash across directories.
func TestFlatPeerFilesHaveAGitNameHashOfTheirOwn(t *testing.T) {
	const peers = 1000
	all := map[uint32]bool{}
	shared := 0
	for i := range peers {
		u := fmt.Sprintf("https://p%d.example.org/traces/", i)
		mine := map[uint32]string{}
		for _, d := range splitDirs {
			p := filepath.ToSlash(FlatPeerPath("mesh-state/"+d+".json", u))
			h := gitNameHash(p)
			if other, ok := mine[h]; ok {
				t.Fatalf("%s and %s share git's name hash %08x: one of them is pushed whole", p, other, h)
			}
			mine[h] = p
			if all[h] {
				shared++
			}
			all[h] = true
		}
	}
	if n := peers * len(splitDirs); shared*100 >= n {
		t.Errorf("%d of %d files share a name hash with another peer's", shared, n)
	}
}

// TestPeerFileNameIsReadable: a peer's file is named by a slug of its
// URL, "_", 8 hex digits and ".json"; its key, what Read returns it
// under, by the slug, "-" and 8 other hex digits, as older nodes named
// the file.
func TestPeerFileNameIsReadable(t *testing.T) {
	url := "https://ada.example/traces/"
	key := PeerFileName(url)
	if !strings.HasPrefix(key, "ada.example-traces-") || len(key) != len("ada.example-traces-")+8+5 {
		t.Errorf("key %s, want ada.example-traces-<8 hex>.json", key)
	}
	name := filepath.Base(FlatPeerPath("mesh-state/ledger.json", url))
	if !strings.HasPrefix(name, "ada.example-traces_") || len(name) != len(key) || filepath.Ext(name) != ".json" {
		t.Errorf("file %s, want ada.example-traces_<8 hex>.json", name)
	}
	if got, old := keyOf("ledger", name); got != key || old {
		t.Errorf("keyOf(%s) = %s, %v; want %s, new", name, got, old, key)
	}
	if got, old := keyOf("ledger", key); got != key || !old {
		t.Errorf("keyOf(%s) = %s, %v; want itself, old", key, got, old)
	}
	for _, other := range []string{"a.json", "x_1234567.json", "x_1234567G.json", "x-ABCDEF01.json", "a_b_12345678.json"} {
		if got, old := keyOf("ledger", other); got != other || old || fileName("ledger", other) != other {
			t.Errorf("%s, not a peer's name: keyOf = %s, %v; fileName = %s", other, got, old, fileName("ledger", other))
		}
	}
}

// oldNode writes files into the split state named by path as older nodes
// named them: by key.
func oldNode(t *testing.T, path string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for key, data := range files {
		if err := os.WriteFile(filepath.Join(Dir(path), key), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestOldNamesAreReadThenMigrated: files per peer, under both names
// nodes before shards gave them (the key; "<slug>_<hex>"), are read
// under their keys by Read, ReadOne and Names; Migrate moves them into
// their shards, after which every read returns the same, the directory
// holds shards only, and a second Migrate changes nothing.
func TestOldNamesAreReadThenMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.json")
	a, b := PeerFileName("https://a.example/"), PeerFileName("https://b.example/")
	want := map[string][]byte{a: []byte("a\n"), b: []byte("b\n")}
	oldNode(t, path, map[string]string{a: "a\n"})
	if err := os.WriteFile(FlatPeerPath(path, "https://b.example/"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if _, got, err := Read(path); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Read = %q, %v; want %q", when, got, err, want)
		}
		if got, err := ReadOne(path, a); err != nil || string(got) != "a\n" {
			t.Errorf("%s: ReadOne(a) = %q, %v", when, got, err)
		}
		if got, err := Names(path); err != nil || !reflect.DeepEqual(got, []string{a, b}) {
			t.Errorf("%s: Names = %v, %v", when, got, err)
		}
	}
	check("before the migration")
	if changed, err := Migrate(path); err != nil || !changed {
		t.Fatalf("Migrate = %v, %v; want a change", changed, err)
	}
	wantNames := []string{filepath.Base(PeerPath(path, "https://a.example/")), filepath.Base(PeerPath(path, "https://b.example/"))}
	sort.Strings(wantNames)
	if got := listDir(t, Dir(path)); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("after Migrate the directory holds %v, want %v", got, wantNames)
	}
	check("after the migration")
	if changed, err := Migrate(path); err != nil || changed {
		t.Errorf("second Migrate = %v, %v; want no change", changed, err)
	}
}

// TestCrashBetweenTheWritesOfAMigrationLosesNothing: a migration that
// stopped at any step (before its shard writes; after one shard, its
// files per peer still there; after every shard, before the removals;
// during the removals) leaves a state Read reads whole, a shard winning
// over a file per peer (written since, so newer), and Migrate, Rewrite
// or Write of what was read finishes it. Update removes every name of a
// key it is told is gone.
func TestCrashBetweenTheWritesOfAMigrationLosesNothing(t *testing.T) {
	a, b, c := PeerFileName("https://a.example/"), PeerFileName("https://b.example/"), PeerFileName("https://c.example/")
	want := map[string][]byte{a: []byte("a2\n"), b: []byte("b1\n"), c: []byte("c1\n")}
	// oldNode leaves a1, b1, c1 under the older names and a2 under the
	// current one: a2 wins, as on a node before shards.
	oldNode := func(t *testing.T, path string) {
		oldNode(t, path, map[string]string{a: "a1\n", b: "b1\n", c: "c1\n"})
		if err := os.WriteFile(FlatPeerPath(path, "https://a.example/"), []byte("a2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name  string
		crash func(t *testing.T, path string)
	}{
		{"before any shard", oldNode},
		{"after a's shard", func(t *testing.T, path string) {
			oldNode(t, path)
			writeShard(t, path, map[string][]byte{a: []byte("a2\n")})
		}},
		{"after a newer write of b's shard", func(t *testing.T, path string) {
			oldNode(t, path)
			writeShard(t, path, map[string][]byte{b: []byte("b1\n")})
		}},
		{"after every shard", func(t *testing.T, path string) {
			oldNode(t, path)
			for k, v := range want {
				writeShard(t, path, map[string][]byte{k: v})
			}
		}},
		{"during the removals", func(t *testing.T, path string) {
			oldNode(t, path)
			for k, v := range want {
				writeShard(t, path, map[string][]byte{k: v})
			}
			os.Remove(filepath.Join(Dir(path), a))
			os.Remove(FlatPeerPath(path, "https://a.example/"))
			os.Remove(filepath.Join(Dir(path), c))
		}},
	}
	finishes := []struct {
		name string
		run  func(path string, read map[string][]byte) error
	}{
		{"Migrate", func(path string, _ map[string][]byte) error { _, err := Migrate(path); return err }},
		{"Rewrite of what was read", func(path string, read map[string][]byte) error { _, err := Rewrite(path, read, read); return err }},
		{"Write of what was read", func(path string, read map[string][]byte) error { _, err := Write(path, read); return err }},
	}
	for _, step := range steps {
		for _, finish := range finishes {
			t.Run(step.name+"/"+finish.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "ledger.json")
				step.crash(t, path)
				_, got, err := Read(path)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("Read after the crash = %q, %v; want %q", got, err, want)
				}
				if err := finish.run(path, got); err != nil {
					t.Fatal(err)
				}
				if _, again, err := Read(path); err != nil || !reflect.DeepEqual(again, want) {
					t.Errorf("Read after %s = %q, %v; want %q", finish.name, again, err, want)
				}
				for _, name := range listDir(t, Dir(path)) {
					if _, ok := shardIndex(Dir(path), name); !ok {
						t.Errorf("%s left the file %s", finish.name, name)
					}
				}
			})
		}
	}
	t.Run("Update of a key gone", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ledger.json")
		oldNode(t, path)
		writeShard(t, path, map[string][]byte{b: []byte("b1\n")})
		if _, err := Update(path, nil, nil, []string{a, b}); err != nil {
			t.Fatal(err)
		}
		if _, got, err := Read(path); err != nil || !reflect.DeepEqual(got, map[string][]byte{c: []byte("c1\n")}) {
			t.Errorf("Read after removing a and b = %q, %v; want c alone", got, err)
		}
	})
}

// writeShard writes files, all of one shard, as that shard of the split
// state named by path, as a write that stopped there left it.
func writeShard(t *testing.T, path string, files map[string][]byte) {
	t.Helper()
	for k := range files {
		if err := os.WriteFile(shardPath(path, k), encodeShard(files), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
}

// TestCorruptOldFileIsNamedAsItIs: an error about a key names the file
// there is: its own under its old name on a node not migrated yet, its
// shard and the key after the migration.
func TestCorruptOldFileIsNamedAsItIs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	a := PeerFileName("https://a.example/")
	oldNode(t, path, map[string]string{a: "{"})
	if got, want := FilePath(path, a), filepath.Join(Dir(path), a); got != want {
		t.Errorf("FilePath of an old file = %s, want %s", got, want)
	}
	if _, err := Migrate(path); err != nil {
		t.Fatal(err)
	}
	if got, want := FilePath(path, a), PeerPath(path, "https://a.example/")+"#"+a; got != want {
		t.Errorf("FilePath after the migration = %s, want %s", got, want)
	}
	if _, err := os.Stat(filepath.Join(Dir(path), a)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old file after Migrate: %v", err)
	}
}

// FuzzFileNameRoundTrips: a key and its file name map to each other in
// every directory, an older node's name and a name that is not a peer's
// are their own key, and no key maps to a file outside the directory.
func FuzzFileNameRoundTrips(f *testing.F) {
	for _, s := range []string{PeerFileName("https://ada.example/traces/"), "ada.example-traces_b5b64f62.json", "a.json", "x-ABCDEF01.json", "_00000000.json", "-00000000.json", "../x-00000000.json"} {
		f.Add("ledger", s)
	}
	f.Fuzz(func(t *testing.T, dir, name string) {
		if key, old := keyOf(dir, name); old {
			if key != name {
				t.Fatalf("keyOf(%q) = %q, old; want itself", name, key)
			}
		} else if got := fileName(dir, key); got != name {
			t.Fatalf("fileName(keyOf(%q) = %q) = %q", name, key, got)
		}
		if _, _, isName := splitName(name, '_'); isName {
			return // a file's name, never a key: PeerFileName gives "-"
		}
		to := fileName(dir, name)
		if key, old := keyOf(dir, to); key != name || old {
			t.Fatalf("keyOf(fileName(%q) = %q) = %q, %v", name, to, key, old)
		}
		if filepath.Base(name) == name && filepath.Base(to) != to {
			t.Fatalf("fileName(%q) = %q leaves the directory", name, to)
		}
	})
}

// TestMigrateNeverReplacesAFileWrittenSinceItsListing: an inbox command
// beside the upgrade heartbeat writes a peer's file under its new name
// after Migrate listed the directory; Migrate must remove the stale old
// file, not move it over the newer one (a person's decision lost), and a
// file another process moved first leaves it nothing to do.
func TestMigrateNeverReplacesAFileWrittenSinceItsListing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.json")
	a, b := PeerFileName("https://a.example/"), PeerFileName("https://b.example/")
	oldNode(t, path, map[string]string{a: "a, as the old node left it\n", b: "b\n"})
	dir := Dir(path)
	listed := map[string]bool{a: true, b: true} // what Migrate listed
	// Written since the listing, under the new name: newer.
	if err := os.WriteFile(filepath.Join(dir, fileName(dir, a)), []byte("a, decided since\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := moveOld(dir, a, fileName(dir, a), listed); err != nil {
		t.Fatal(err)
	}
	// Moved by another process since the listing.
	if err := os.Rename(filepath.Join(dir, b), filepath.Join(dir, fileName(dir, b))); err != nil {
		t.Fatal(err)
	}
	if err := moveOld(dir, b, fileName(dir, b), listed); err != nil {
		t.Fatalf("a file moved by another process: %v", err)
	}
	want := map[string][]byte{a: []byte("a, decided since\n"), b: []byte("b\n")}
	if _, got, err := ReadFlat(path); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Read = %q, %v; want %q", got, err, want)
	}
	if got := listDir(t, dir); len(got) != 2 {
		t.Fatalf("the directory holds %v, want each peer's file once", got)
	}
}

// TestUpdateNeverRemovesAFileItWrites: a store that moves a file read
// under another peer's name says that name gone while it saves that
// other peer under it; the file just written must stay.
func TestUpdateNeverRemovesAFileItWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-pins.json")
	b := PeerFileName("https://b.example/")
	if _, err := Write(path, map[string][]byte{b: []byte("a's pin, under b's name\n")}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{b: []byte("b's pin\n")}
	if _, err := Update(path, files, nil, []string{b}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadOne(path, b); err != nil || string(got) != "b's pin\n" {
		t.Fatalf("b's file after the save: %q, %v; want b's pin", got, err)
	}
}
