package site

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
)

// TestBuildRefusesSymlinkedFiles: a symlinked top-level file, or
// a link in traces/, validations/ or disputes/, stops the build with an
// error naming it, before anything is written; the Pages artifact (a tar
// that dereferences links) would otherwise ship the link's target, on a
// runner .git/config.
func TestBuildRefusesSymlinkedFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(secret, []byte("[http] extraheader = AUTHORIZATION: basic c2VjcmV0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"IDENTITY.md", "AGENTS.md", "MANIFEST.md", "FOUNDERS.md", "traces/leak.md", "validations/val-000000000000.md", "disputes/dispute-000000000000.md", "traces"} {
		t.Run(f, func(t *testing.T) {
			dir := copyNode(t)
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(p)
			if err := os.Symlink(secret, p); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "site")
			_, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow})
			if !errors.Is(err, node.ErrSymlink) || !strings.Contains(err.Error(), f) {
				t.Fatalf("Build with %s a symlink: %v, want a symlink error naming it", f, err)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the refused build wrote %s", out)
			}
		})
	}
}

// TestBuildPublishesOnlyPublishableFiles: traces/x.html, an .svg, a file in
// a subdirectory, a bad name or a validation over the size peers accept
// never reach the site, and the site holds no symlink.
func TestBuildPublishesOnlyPublishableFiles(t *testing.T) {
	dir := copyNode(t)
	left := map[string]string{
		"traces/x.html":               "<script>alert(1)</script>",
		"traces/x.svg":                "<svg onload=alert(1)/>",
		"validations/y.html":          "<script>alert(1)</script>",
		"traces/sub/z.md":             "# z\n",
		"traces/sub/z.html":           "<script>alert(1)</script>",
		"traces/a b.md":               "# a b\n",
		"validations/val-big.md":      "# VALIDATION\n" + strings.Repeat("x", node.MaxFileBytes),
		"traces/" + long(200) + ".md": "# long\n",
	}
	for f, body := range left {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Build(context.Background(), Options{Dir: dir, Out: out, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, f := range siteFiles(t, out) {
		files[f] = true
	}
	for f := range left {
		if files[f] {
			t.Errorf("%s is on the site", f)
		}
	}
	if files["traces/sub/z.html"] || files["traces/x.html"] {
		t.Error("a page was generated for a file that is not published")
	}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("the site holds a symlink: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func long(n int) string { return strings.Repeat("a", n) }
