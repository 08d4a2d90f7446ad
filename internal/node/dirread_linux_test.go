package node

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPublishedDirRefusesWhatIsNoLongerAFile: a published file replaced,
// after the directory was listed, by a link (even to a file beside it)
// or by a named pipe is refused, and the pipe's open does not block
// waiting for a writer.
func TestPublishedDirRefusesWhatIsNoLongerAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	d, err := openPublishedDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if data, err := d.read("a.md", "traces/a.md", MaxFileBytes); err != nil || string(data) != "# A\n" {
		t.Errorf("read a.md = %q, %v; want its bytes", data, err)
	}
	for _, tc := range []struct {
		name string
		want error
	}{{"link.md", ErrSymlink}, {"pipe.md", ErrNotRegular}} {
		if data, err := d.read(tc.name, "traces/"+tc.name, MaxFileBytes); !errors.Is(err, tc.want) {
			t.Errorf("read %s = %q, %v; want %v", tc.name, data, err, tc.want)
		}
	}
	if _, err := d.read("a.md", "traces/a.md", 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("read a.md over its limit: %v, want %v", err, ErrTooLarge)
	}
	if _, err := d.read("gone.md", "traces/gone.md", MaxFileBytes); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read gone.md: %v, want %v", err, os.ErrNotExist)
	}
}

// TestOpenPublishedDirRefusesALink: the directory itself is opened
// without following a link.
func TestOpenPublishedDirRefusesALink(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "traces")); err != nil {
		t.Fatal(err)
	}
	if d, err := openPublishedDir(filepath.Join(dir, "traces")); err == nil {
		d.close()
		t.Error("opened a link to a directory")
	}
}
