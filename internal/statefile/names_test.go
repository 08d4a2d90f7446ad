package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
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

// TestPeerFilesHaveAGitNameHashOfTheirOwn: a peer's files in the split
// directories each have a name hash of their own, so that git finds each
// one's previous version to delta it against; under the names older
// nodes gave (the key in every directory) they all shared one. Across
// peers a hash of 32 bits, of which ".json" fixes the top ten, is shared
// now and then: by fewer than 1 % of 1,000 peers' files.
func TestPeerFilesHaveAGitNameHashOfTheirOwn(t *testing.T) {
	const peers = 1000
	all := map[uint32]bool{}
	shared := 0
	for i := range peers {
		u := fmt.Sprintf("https://p%d.example.org/traces/", i)
		mine := map[uint32]string{}
		for _, d := range splitDirs {
			p := filepath.ToSlash(PeerPath("mesh-state/"+d+".json", u))
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
	name := filepath.Base(PeerPath("mesh-state/ledger.json", url))
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

// TestOldNamesAreReadThenMigrated: an older node's files are read under
// their keys by Read, ReadOne and Names; Migrate renames them, after
// which every read returns the same, and a second Migrate changes
// nothing.
func TestOldNamesAreReadThenMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.json")
	a, b := PeerFileName("https://a.example/"), PeerFileName("https://b.example/")
	want := map[string][]byte{a: []byte("a\n"), b: []byte("b\n")}
	oldNode(t, path, map[string]string{a: "a\n", b: "b\n"})
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
	if got := listDir(t, Dir(path)); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("after Migrate the directory holds %v, want %v", got, wantNames)
	}
	check("after the migration")
	if changed, err := Migrate(path); err != nil || changed {
		t.Errorf("second Migrate = %v, %v; want no change", changed, err)
	}
}

// TestCrashBetweenTheWritesOfAMigrationLosesNothing: a write that stopped
// after writing a peer's file of the new name, before removing its old
// one, leaves both: the new one, written last, is read, and the next
// Migrate or Rewrite removes the old; a peer whose file was not written
// yet keeps its old one, read, and moved by either. Update removes both
// names of a file it is told is gone.
func TestCrashBetweenTheWritesOfAMigrationLosesNothing(t *testing.T) {
	a, b, c := PeerFileName("https://a.example/"), PeerFileName("https://b.example/"), PeerFileName("https://c.example/")
	crashed := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "ledger.json")
		oldNode(t, path, map[string]string{a: "a1\n", b: "b1\n", c: "c1\n"})
		if err := os.WriteFile(PeerPath(path, "https://a.example/"), []byte("a2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	want := map[string][]byte{a: []byte("a2\n"), b: []byte("b1\n"), c: []byte("c1\n")}
	for _, finish := range []struct {
		name string
		run  func(path string, read map[string][]byte) error
	}{
		{"Migrate", func(path string, _ map[string][]byte) error { _, err := Migrate(path); return err }},
		{"Rewrite of what was read", func(path string, read map[string][]byte) error { _, err := Rewrite(path, read, read); return err }},
		{"Write of what was read", func(path string, read map[string][]byte) error { _, err := Write(path, read); return err }},
	} {
		t.Run(finish.name, func(t *testing.T) {
			path := crashed(t)
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
				if _, old := keyOf(Dir(path), name); old {
					t.Errorf("%s left the old file %s", finish.name, name)
				}
			}
		})
	}
	t.Run("Update of a file gone", func(t *testing.T) {
		path := crashed(t)
		if _, err := Update(path, nil, nil, []string{a, b}); err != nil {
			t.Fatal(err)
		}
		if _, got, err := Read(path); err != nil || !reflect.DeepEqual(got, map[string][]byte{c: []byte("c1\n")}) {
			t.Errorf("Read after removing a and b = %q, %v; want c alone", got, err)
		}
	})
}

// TestCorruptOldFileIsNamedAsItIs: an error about a file names the file
// there is, under its old name on a node not migrated yet.
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
	if got, want := FilePath(path, a), PeerPath(path, "https://a.example/"); got != want {
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
	if _, got, err := Read(path); err != nil || !reflect.DeepEqual(got, want) {
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
