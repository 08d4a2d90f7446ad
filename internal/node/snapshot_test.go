package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
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

func TestKnownListsAgentsThenLearnedPeersOnceEachWithoutUs(t *testing.T) {
	dir := writeNode(t, map[string]string{
		AgentsFile: "# name | trace_url | joined\n" +
			"bob | https://bob.example/ | 2026-01-01\n" +
			"us | https://us.example/ | 2026-01-01\n" +
			"ada | https://ada.example/ | 2026-01-01\n" +
			"bobby | https://bob.example/ | 2026-01-02\n",
	})
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	learned := s.Cursors.Cursor("https://cyd.example/")
	learned.Agent, learned.LearnedFrom = "cyd", "https://ada.example/"
	again := s.Cursors.Cursor("https://ada.example/")
	again.Agent, again.LearnedFrom = "impostor", "https://cyd.example/"
	s.Cursors.Cursor("https://polled.example/") // polled once, neither listed nor learned
	var got []string
	for _, k := range s.Known("https://us.example") {
		got = append(got, fmt.Sprintf("%s %s %v", k.Name, k.URL, k.Listed))
	}
	want := []string{"bob https://bob.example/ true", "ada https://ada.example/ true", "cyd https://cyd.example/ false"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Known =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAgentsFileThatIsALinkIsAnErrorOfItsOwn(t *testing.T) {
	dir := writeNode(t, map[string]string{"elsewhere.md": "ada | https://ada.example/ | 2026-01-01\n"})
	if err := os.Symlink(filepath.Join(dir, "elsewhere.md"), filepath.Join(dir, AgentsFile)); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("Open = %v; a linked AGENTS.md should not stop what does not need it", err)
	}
	if !errors.Is(s.AgentsErr, ErrSymlink) || len(s.Agents) != 0 {
		t.Errorf("AgentsErr = %v with %d agents, want ErrSymlink and none", s.AgentsErr, len(s.Agents))
	}
}

func TestOpenRefusesOurManifestLinkedToAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(fifo, filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Open(dir, Options{}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open = %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open hung on a MANIFEST.md linked to a pipe")
	}
}

// TestValidationIsParsedOncePerFileAndHash: Validation parses a file the
// first time it is asked for, and again only for other bytes at the path;
// a file that is not a validation, or was not read, says why, each time.
func TestValidationIsParsedOncePerFileAndHash(t *testing.T) {
	body := "# VALIDATION\n\nvalidator: us\nvalidator_url: https://us.example/\ntrace_url: https://p.example/traces/a.md\n" +
		"trace_hash: sha256:" + strings.Repeat("a", 64) + "\nvalidated_at: 2026-03-11T00:00:00Z\nresult: pass\ntotal_score: 20\n"
	dir := writeNode(t, map[string]string{"validations/val-aaaaaaaaaaaa.md": body, "validations/val-bbbbbbbbbbbb.md": "not one\n"})
	parsed := map[string]int{}
	parsingValidation = func(rel string) { parsed[rel]++ }
	defer func() { parsingValidation = nil }()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := func(rel string) File {
		f, ok := s.File(rel)
		if !ok {
			t.Fatalf("no %s", rel)
		}
		return f
	}
	for range 2 {
		if v, err := s.Validation(file("validations/val-aaaaaaaaaaaa.md")); err != nil || v.Result != "pass" || v.Total != 20 || v.Validator != "us" {
			t.Fatalf("Validation = %+v, %v", v, err)
		}
		if _, err := s.Validation(file("validations/val-bbbbbbbbbbbb.md")); err == nil {
			t.Error("a file that is not a validation has a record")
		}
	}
	if parsed["validations/val-aaaaaaaaaaaa.md"] != 1 || parsed["validations/val-bbbbbbbbbbbb.md"] != 1 {
		t.Errorf("parses: %v, want each file once", parsed)
	}
	i, _ := s.find("validations/val-aaaaaaaaaaaa.md")
	s.files[i].Data = []byte(strings.Replace(body, "result: pass\ntotal_score: 20", "result: fail\ntotal_score: 8", 1))
	s.files[i].Hash = manifest.HashBytes(s.files[i].Data)
	if v, err := s.Validation(file("validations/val-aaaaaaaaaaaa.md")); err != nil || v.Result != "fail" || parsed["validations/val-aaaaaaaaaaaa.md"] != 2 {
		t.Errorf("other bytes at the path: %+v, %v, parsed %d times", v, err, parsed["validations/val-aaaaaaaaaaaa.md"])
	}
	if _, err := s.Validation(File{Path: "validations/big.md", Err: ErrTooLarge}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Validation of a file too large to read = %v", err)
	}
}
