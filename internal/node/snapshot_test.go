package node

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func writeNode(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOpenListsFilesInSeqOrderAndHoldsBackTheRest(t *testing.T) {
	dir := writeNode(t, map[string]string{
		"validations/val-aaaaaaaaaaaa.md":  "v",
		"traces/b.md":                      "# B\n",
		"traces/a.md":                      "# A\n",
		"traces/x.html":                    "<script>",
		"traces/.gitkeep":                  "",
		"disputes/dispute-bbbbbbbbbbbb.md": "d",
		"traces/big.md":                    strings.Repeat("x", MaxFileBytes+1),
	})
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "traces", "link.md")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Files("") {
		got = append(got, f.Path)
	}
	want := "traces/a.md traces/b.md traces/big.md validations/val-aaaaaaaaaaaa.md disputes/dispute-bbbbbbbbbbbb.md"
	if strings.Join(got, " ") != want {
		t.Errorf("Files = %v, want %s", got, want)
	}
	if f, _ := s.File("traces/big.md"); !errors.Is(f.Err, ErrTooLarge) || f.Data != nil {
		t.Errorf("a file over MaxFileBytes = %v with %d bytes, want ErrTooLarge and no bytes", f.Err, len(f.Data))
	}
	held := map[string]Held{}
	for _, h := range s.Held() {
		held[h.Path] = h
	}
	if h := held["traces/link.md"]; !h.Link || !strings.Contains(h.Reason, "symbolic link") {
		t.Errorf("a symlink is held as %+v", h)
	}
	if h := held["traces/x.html"]; h.Link || !strings.Contains(h.Reason, "publishable name") {
		t.Errorf("traces/x.html is held as %+v", h)
	}
	if len(held) != 2 {
		t.Errorf("held %v, want the link and the .html only", s.Held())
	}
	if h := s.OwnHashes(); len(h) != 2 {
		t.Errorf("OwnHashes = %v, want the two readable traces", h)
	}
}

func TestOpenRefusesASymlinkedPublishedDirectory(t *testing.T) {
	dir := writeNode(t, map[string]string{"elsewhere/a.md": "# A\n"})
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, TracesDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrSymlink) {
		t.Fatalf("Open = %v, want ErrSymlink", err)
	}
}

func TestWriteFileNeverOverwrites(t *testing.T) {
	dir := writeNode(t, map[string]string{"validations/val-aaaaaaaaaaaa.md": "old"})
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile("validations/val-aaaaaaaaaaaa.md", []byte("new")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("overwriting a file of the snapshot = %v, want fs.ErrExist", err)
	}
	// A person writes one after the snapshot was taken.
	if err := os.WriteFile(filepath.Join(dir, "validations", "val-cccccccccccc.md"), []byte("person"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile("validations/val-cccccccccccc.md", []byte("scorer")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("overwriting a person's new file = %v, want fs.ErrExist", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "validations", "val-cccccccccccc.md")); string(data) != "person" {
		t.Errorf("the person's file now holds %q", data)
	}
	if err := s.WriteFile("traces/../mesh.yaml", []byte("x")); err == nil {
		t.Error("WriteFile wrote outside a published directory")
	}
	// Concurrent writers of one path: exactly one wins.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.WriteFile("validations/val-dddddddddddd.md", []byte("v")) == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d concurrent writers of one file succeeded, want 1", wins)
	}
	if f, ok := s.File("validations/val-dddddddddddd.md"); !ok || string(f.Data) != "v" || f.Hash == "" {
		t.Errorf("the snapshot does not hold the written file: %+v", f)
	}
}

func TestTraceIsParsedOnce(t *testing.T) {
	dir := writeNode(t, map[string]string{"traces/a.md": "# A trace\n\n**Type:** knowledge\n\n## Work\n\nText.\n"})
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Trace("traces/a.md")
	if err != nil || a.Type != "knowledge" {
		t.Fatalf("Trace = %+v, %v", a, err)
	}
	if b, _ := s.Trace("traces/a.md"); b != a {
		t.Error("a second Trace parsed the file again")
	}
	if _, err := s.Trace("traces/none.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Trace of a missing file = %v", err)
	}
}
