package copies

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStampSeesWhatChangesTheCopiesHeld checks that a copy added, taken
// down or lost changes the stamp, and that a restore keeping the files'
// bytes and whole-second times (the Actions cache's tar) does not.
func TestStampSeesWhatChangesTheCopiesHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copies.json")
	stamp := func() []byte {
		t.Helper()
		s, err := Stamp(path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := stamp(); len(s) != 0 {
		t.Fatalf("no copies: stamp %q, want empty", s)
	}
	s := New()
	s.Put(hashOf("a"), Of(peerURL, []byte("# A\n")))
	if _, err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	one := stamp()
	if len(one) == 0 {
		t.Fatal("a copy kept: stamp empty")
	}
	// The cache restores the bytes and the time to the second.
	f := filepath.Join(path[:len(path)-len(".json")], mustOnlyFile(t, path))
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	sec := fi.ModTime().Truncate(time.Second).Add(300 * time.Millisecond)
	if err := os.Chtimes(f, sec, sec); err != nil {
		t.Fatal(err)
	}
	if again := stamp(); !bytes.Equal(again, one) {
		t.Errorf("same bytes, same second: stamp %q, was %q", again, one)
	}
	s.Put(hashOf("b"), Of(peerURL, []byte("# B\n")))
	if _, err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	two := stamp()
	if bytes.Equal(two, one) {
		t.Errorf("a copy added: stamp unchanged %q", two)
	}
	if err := os.RemoveAll(filepath.Dir(f)); err != nil {
		t.Fatal(err)
	}
	if lost := stamp(); len(lost) != 0 {
		t.Errorf("copies lost with the cache: stamp %q, want empty", lost)
	}
}

func mustOnlyFile(t *testing.T, path string) string {
	t.Helper()
	entries, err := os.ReadDir(path[:len(path)-len(".json")])
	if err != nil || len(entries) != 1 {
		t.Fatalf("copies/: %v, %d files, want 1", err, len(entries))
	}
	return entries[0].Name()
}
