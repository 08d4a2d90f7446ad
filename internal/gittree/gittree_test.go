package gittree

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repo makes a git checkout in a temporary directory with a committed
// file validations/val-a.md, or skips when git is absent.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	write(t, dir, "validations/val-a.md", "score 20\n")
	write(t, dir, ".gitignore", "*.tmp\n")
	gitRun(t, dir, "init", "-q")
	commit(t, dir)
	return dir
}

func commit(t *testing.T, dir string) {
	t.Helper()
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}

func write(t *testing.T, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOfFollowsContentAndRefusesADirtyTree(t *testing.T) {
	ctx := context.Background()
	paths := []string{"validations", "disputes"}
	t.Run("clean tree gives its IDs, and a commit of new bytes new ones", func(t *testing.T) {
		dir := repo(t)
		first, err := Of(ctx, dir, paths)
		if err != nil || !bytes.Contains(first, []byte("\tvalidations\n")) {
			t.Fatalf("Of = %q, %v; want the tree of validations", first, err)
		}
		write(t, dir, "validations/val-a.md", "score 21\n") // same size
		commit(t, dir)
		second, err := Of(ctx, dir, paths)
		if err != nil || bytes.Equal(first, second) {
			t.Fatalf("after a same-size edit committed: %q, %v; want another ID than %q", second, err, first)
		}
	})
	for _, tc := range []struct {
		name, rel, data string
	}{
		{"an edit of the same size", "validations/val-a.md", "score 21\n"},
		{"a new file", "validations/val-b.md", "x"},
		{"a file git ignores", "validations/x.tmp", "x"},
		{"a file under a path absent from HEAD", "disputes/d.md", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t)
			write(t, dir, tc.rel, tc.data)
			if got, err := Of(ctx, dir, paths); !errors.Is(err, ErrDirty) {
				t.Fatalf("Of = %q, %v; want ErrDirty", got, err)
			}
		})
	}
	t.Run("not a checkout", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git")
		}
		dir := t.TempDir()
		if got, err := Of(ctx, dir, paths); err == nil || errors.Is(err, ErrDirty) {
			t.Fatalf("Of = %q, %v; want an error that is not ErrDirty", got, err)
		}
	})
}
