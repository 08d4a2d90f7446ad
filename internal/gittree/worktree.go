package gittree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Current returns what git would record for paths if the work tree were
// committed now, every file there included (ignored ones too), in Of's
// form: Of's answer when the work tree is clean there, WorkTree's
// otherwise. Both give the same bytes for the same files, so a digest of
// it taken before a commit is the one taken after.
func Current(ctx context.Context, dir string, paths []string) ([]byte, error) {
	out, err := Of(ctx, dir, paths)
	if errors.Is(err, ErrDirty) {
		return WorkTree(ctx, dir, paths)
	}
	return out, err
}

// WorkTree returns what git would record for paths if every file under
// them in the work tree were staged (`git add --all --force`, so a file
// git ignores counts) and committed: the lines `git ls-tree` prints for
// them, as Of does for HEAD. It stages into a copy of git's index, never
// the index itself: the copy keeps the index's stat data and its time,
// so git hashes again only the files whose stat data changed or that
// were written in the same second as the index ("racy git"), as its own
// clean check does. The blobs it hashes are written to git's object
// store, as `git add` writes them.
func WorkTree(ctx context.Context, dir string, paths []string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "meshnode-gittree-")
	if err != nil {
		return nil, fmt.Errorf("work tree's git objects: %w", err)
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if err := copyIndex(ctx, dir, index); err != nil {
		return nil, err
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	present, absent, err := split(dir, paths)
	if err != nil {
		return nil, err
	}
	if len(absent) > 0 {
		if _, err := run(ctx, dir, env, append([]string{"rm", "-r", "-q", "--cached", "--ignore-unmatch", "--"}, absent...)); err != nil {
			return nil, err
		}
	}
	if len(present) > 0 {
		if _, err := run(ctx, dir, env, append([]string{"add", "--all", "--force", "--"}, present...)); err != nil {
			return nil, err
		}
	}
	tree, err := runWhole(ctx, dir, env, []string{"write-tree"})
	if err != nil {
		return nil, err
	}
	return runWhole(ctx, dir, nil, append([]string{"ls-tree", string(bytes.TrimSpace(tree)), "--"}, paths...))
}

// copyIndex copies git's index of the checkout at dir to dst with its
// modification time, which git's racy check compares files' times with.
// A checkout without an index yet leaves dst absent: git starts empty.
func copyIndex(ctx context.Context, dir, dst string) error {
	out, err := runWhole(ctx, dir, nil, []string{"rev-parse", "--git-path", "index"})
	if err != nil {
		return err
	}
	src := string(bytes.TrimSpace(out))
	if !filepath.IsAbs(src) {
		src = filepath.Join(dir, src)
	}
	in, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("copy git's index: %w", err)
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return fmt.Errorf("copy git's index: %w", err)
	}
	f, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copy git's index: %w", err)
	}
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chtimes(dst, info.ModTime(), info.ModTime())
	}
	if err != nil {
		return fmt.Errorf("copy git's index: %w", err)
	}
	return nil
}

// split sorts paths into those present in the work tree and those not:
// git refuses to add a pathspec that matches nothing.
func split(dir string, paths []string) (present, absent []string, err error) {
	for _, p := range paths {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		switch {
		case err == nil:
			present = append(present, p)
		case errors.Is(err, fs.ErrNotExist):
			absent = append(absent, p)
		default:
			return nil, nil, fmt.Errorf("work tree's git objects: %w", err)
		}
	}
	return present, absent, nil
}
