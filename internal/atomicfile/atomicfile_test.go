package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteFileReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "state.json")
	if err := WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "two" {
		t.Fatalf("read back %q, %v", got, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(entries))
	}
}

func TestWriteFileIfChangedKeepsMtime(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := WriteFile(p, []byte("same"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	wrote, err := WriteFileIfChanged(p, []byte("same"), 0o644)
	if err != nil || wrote {
		t.Fatalf("wrote=%v err=%v, want no write", wrote, err)
	}
	fi, _ := os.Stat(p)
	if !fi.ModTime().Equal(old) {
		t.Fatalf("mtime changed to %v", fi.ModTime())
	}
	wrote, err = WriteFileIfChanged(p, []byte("new"), 0o644)
	if err != nil || !wrote {
		t.Fatalf("wrote=%v err=%v, want a write", wrote, err)
	}
}

func TestWriteFileFailsOnDirectoryTarget(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "x"), []byte("a"), 0o644); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp file left behind: %d entries", len(entries))
	}
}

func TestRemoveTempsDeletesOnlyLeftoverTemps(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{".queue.json.tmp-123", "queue.json", ".hidden", "notes.tmp-1", ".draft.md.tmp-mine", ".x.tmp-"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveTemps(dir); err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{".draft.md.tmp-mine", ".hidden", ".x.tmp-", "notes.tmp-1", "queue.json"}
	if strings.Join(left, ",") != strings.Join(want, ",") {
		t.Fatalf("left %v, want %v", left, want)
	}
	if err := RemoveTemps(filepath.Join(dir, "absent")); err != nil {
		t.Fatalf("missing dir: %v", err)
	}
}

func TestWriteFileUnsyncedReplacesWholeAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "v.md")
	for _, data := range []string{"first", "second, longer"} {
		if err := WriteFileUnsynced(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != data {
			t.Fatalf("file holds %q, want %q", got, data)
		}
	}
	if err := SyncFS(filepath.Dir(p)); err != nil {
		t.Fatalf("SyncFS: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want the file alone", len(entries))
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestCreateFileNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "v.md")
	for _, create := range []func(string, []byte, os.FileMode) error{CreateFile, CreateFileUnsynced} {
		os.Remove(p)
		if err := create(p, []byte("first"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := create(p, []byte("second"), 0o644); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("a second create = %v, want fs.ErrExist", err)
		}
		if got, _ := os.ReadFile(p); string(got) != "first" {
			t.Fatalf("file holds %q, want the first bytes", got)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("directory holds %d entries, want the file alone (no temporary left)", len(entries))
		}
	}
}

// TestWriteFileIfChangedReadsNoFileOfAnotherSize: a file of another size
// than the new bytes differs without being read, so a damaged file grown
// huge (here a sparse 64 GiB one) is replaced, not read into memory.
func TestWriteFileIfChangedReadsNoFileOfAnotherSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 64<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	wrote, err := WriteFileIfChanged(p, []byte("small\n"), 0o644)
	if err != nil || !wrote {
		t.Fatalf("wrote=%v err=%v", wrote, err)
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != "small\n" {
		t.Fatalf("the file holds %q, %v", got, err)
	}
	for _, data := range []string{"", "small\n", "smalL\n"} {
		if err := os.WriteFile(p, []byte("small\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		wrote, err := WriteFileIfChanged(p, []byte(data), 0o644)
		if err != nil || wrote != (data != "small\n") {
			t.Errorf("%q over %q: wrote=%v err=%v", data, "small\n", wrote, err)
		}
	}
}
