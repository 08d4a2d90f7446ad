package gittree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c", "--allow-empty")
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
		{"a file in a directory git ignores whole", "validations/drafts/d.md", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t)
			write(t, dir, ".gitignore", "*.tmp\ndrafts/\n")
			commit(t, dir)
			write(t, dir, tc.rel, tc.data)
			if got, err := Of(ctx, dir, paths); !errors.Is(err, ErrDirty) {
				t.Fatalf("Of = %q, %v; want ErrDirty", got, err)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"an edit staged, the work tree back to HEAD's bytes", func(t *testing.T, dir string) {
			write(t, dir, "validations/val-a.md", "score 21\n")
			gitRun(t, dir, "add", "validations/val-a.md")
			write(t, dir, "validations/val-a.md", "score 20\n")
		}},
		{"a file taken out of the index, kept in the work tree", func(t *testing.T, dir string) {
			gitRun(t, dir, "rm", "-q", "--cached", "validations/val-a.md")
		}},
		{"a file removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "validations/val-a.md")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t)
			tc.change(t, dir)
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

// TestManyFilesNotTrackedAreDirtyNotAnError adds more untracked files
// under the paths than git's kept output holds (a node never committed,
// or a large batch not committed yet): the work tree is dirty, so Current
// digests it, where a clean check that failed on git's output length
// left the heartbeat no digest at all.
func TestManyFilesNotTrackedAreDirtyNotAnError(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	name := strings.Repeat("x", 200)
	for i := 0; i*len(name) <= maxOutput; i++ {
		write(t, dir, fmt.Sprintf("validations/new/%s-%05d.md", name, i), "x")
	}
	paths := []string{"validations"}
	if got, err := Of(ctx, dir, paths); !errors.Is(err, ErrDirty) {
		t.Fatalf("Of = %.100q, %v; want ErrDirty", got, err)
	}
	if _, err := Current(ctx, dir, paths); err != nil {
		t.Fatalf("Current: %v; want the work tree's entries", err)
	}
}

// TestWorkTreeIsWhatACommitRecords changes the work tree, asks WorkTree
// (and Current) what a commit would record, commits as the heartbeat's
// workflow does (`git add --all`), and compares with Of on the new HEAD:
// the same bytes, so a digest taken before the commit holds after it.
func TestWorkTreeIsWhatACommitRecords(t *testing.T) {
	ctx := context.Background()
	paths := []string{"validations", "disputes", "traces", "mesh.yaml"}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"nothing", func(*testing.T, string) {}},
		{"an edit of the same size", func(t *testing.T, dir string) { write(t, dir, "validations/val-a.md", "score 21\n") }},
		{"new files in new directories", func(t *testing.T, dir string) {
			write(t, dir, "disputes/d.md", "d\n")
			write(t, dir, "traces/x/y/z.md", "z\n")
			write(t, dir, "mesh.yaml", "agent: a\n")
		}},
		{"a file removed, its directory with it", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "validations")); err != nil {
				t.Fatal(err)
			}
		}},
		{"an executable file and a symbolic link", func(t *testing.T, dir string) {
			write(t, dir, "traces/run.sh", "#!/bin/sh\n")
			if err := os.Chmod(filepath.Join(dir, "traces/run.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("run.sh", filepath.Join(dir, "traces/link")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t)
			tc.change(t, dir)
			before, err := WorkTree(ctx, dir, paths)
			if err != nil {
				t.Fatal(err)
			}
			current, err := Current(ctx, dir, paths)
			if err != nil || !bytes.Equal(current, before) {
				t.Fatalf("Current = %q, %v; want WorkTree's %q", current, err, before)
			}
			if staged := gitOut(t, dir, "diff", "--cached", "--name-only"); staged != "" {
				t.Errorf("WorkTree staged files in git's own index: %q", staged)
			}
			commit(t, dir)
			after, err := Of(ctx, dir, paths)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("before the commit:\n%s\nafter it:\n%s", before, after)
			}
		})
	}
}

// TestWorkTreeSeesWhatTheCleanCheckSees makes, after a commit, each change
// Of refuses as dirty, and wants WorkTree to give other IDs than the
// commit's: a same-size edit in the same second as the commit (git's racy
// case), a file git ignores, a file removed.
func TestWorkTreeSeesWhatTheCleanCheckSees(t *testing.T) {
	ctx := context.Background()
	paths := []string{"validations", "disputes"}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"an edit of the same size", func(t *testing.T, dir string) { write(t, dir, "validations/val-a.md", "score 21\n") }},
		{"a file git ignores", func(t *testing.T, dir string) { write(t, dir, "validations/x.tmp", "x") }},
		{"a file removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "validations/val-a.md")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t)
			head, err := Of(ctx, dir, paths)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(t, dir)
			got, err := Current(ctx, dir, paths)
			if err != nil || bytes.Equal(got, head) {
				t.Fatalf("Current = %q, %v; want other IDs than HEAD's %q", got, err, head)
			}
		})
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
