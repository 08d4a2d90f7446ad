package node

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckNameRefusesNamesThatBreakPublishing(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"2026-03-01-what-429s-taught-us.md", true},
		{"val-3f2a9c1b7d4e.md", true},
		{"Notes_v2.md", true},
		{strings.Repeat("a", MaxNameBytes-3) + ".md", true},
		{strings.Repeat("a", MaxNameBytes-2) + ".md", false},
		{strings.Repeat("a", 252) + ".md", false}, // 255 bytes: ENAMETOOLONG once a build adds a suffix
		{"x.html", false},
		{"x.svg", false},
		{"x.MD", false},
		{".md", false},
		{"", false},
		{".hidden.md", false},
		{"-h.md", false},
		{"--dir=x.md", false},
		{"a\nb.md", false},
		{"a|b.md", false},
		{"a b.md", false},
		{"a\x00b.md", false},
		{"a\x7fb.md", false},
		{"é.md", false},
		{"a/b.md", false},
		{"a\\b.md", false},
		{"index.md", false}, // its page would replace the site's traces/index.html
		{"index-2.md", true},
	}
	for _, tt := range tests {
		err := CheckName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestReadFileRefusesSymlinksAtEveryStep(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	write(t, outside, "token\n")
	write(t, filepath.Join(dir, "traces", "ok.md"), "# ok\n")
	must(t, os.Symlink(outside, filepath.Join(dir, "IDENTITY.md")))
	must(t, os.Symlink("ok.md", filepath.Join(dir, "traces", "inside.md")))
	must(t, os.Symlink(filepath.Join(dir, "traces"), filepath.Join(dir, "validations")))
	must(t, os.Mkdir(filepath.Join(dir, "disputes"), 0o755))

	if data, err := ReadFile(dir, "traces/ok.md", MaxFileBytes); err != nil || string(data) != "# ok\n" {
		t.Fatalf("ReadFile of a regular file = %q, %v", data, err)
	}
	for _, f := range []string{"IDENTITY.md", "traces/inside.md", "validations/ok.md"} {
		if _, err := ReadFile(dir, f, MaxFileBytes); !errors.Is(err, ErrSymlink) {
			t.Errorf("ReadFile(%s) = %v, want ErrSymlink", f, err)
		}
		if _, err := Stat(dir, f); !errors.Is(err, ErrSymlink) {
			t.Errorf("Stat(%s) = %v, want ErrSymlink", f, err)
		}
	}
	if _, err := ReadFile(dir, "disputes", MaxFileBytes); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile of a directory = %v, want ErrNotRegular", err)
	}
	if _, err := ReadFile(dir, "traces/none.md", MaxFileBytes); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(dir, "traces/ok.md/x", MaxFileBytes); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile below a file = %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(dir, "../secret", MaxFileBytes); err == nil {
		t.Error("ReadFile left the node's directory")
	}
}

func TestReadFileRefusesMoreThanMax(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "traces", "big.md"), strings.Repeat("x", 11))
	if _, err := ReadFile(dir, "traces/big.md", 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over max = %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(dir, "traces/big.md", 11); err != nil {
		t.Errorf("ReadFile at max = %v", err)
	}
}

func TestPublishableWantsARegularFileWithAPublishableName(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.md", "a.html", ".tmp.md"} {
		write(t, filepath.Join(dir, n), "x")
	}
	must(t, os.Symlink("a.md", filepath.Join(dir, "link.md")))
	must(t, os.Mkdir(filepath.Join(dir, "sub.md"), 0o755))
	entries, err := os.ReadDir(dir)
	must(t, err)
	var got []string
	for _, e := range entries {
		if Publishable(e) {
			got = append(got, e.Name())
		}
	}
	if strings.Join(got, " ") != "a.md" {
		t.Errorf("publishable: %v, want only a.md", got)
	}
}

func TestNodeAndPublishedDirNameTheNodesPaths(t *testing.T) {
	for f, want := range map[string]bool{"IDENTITY.md": true, "traces/x.md": true, "mesh-state/ledger.json": true,
		"mesh.yaml": true, "README.md": false, "internal/check/check.go": false, ".github/workflows/check.yml": false} {
		if Node(f) != want {
			t.Errorf("Node(%q) = %v, want %v", f, !want, want)
		}
	}
	for f, want := range map[string]string{"traces/x.md": "traces", "validations/v.md": "validations",
		"traces/sub/x.md": "", "x.md": "", "disputes/d.md": "disputes"} {
		if got := PublishedDir(f); got != want {
			t.Errorf("PublishedDir(%q) = %q, want %q", f, got, want)
		}
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
