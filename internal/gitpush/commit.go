package gitpush

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// commit stages the paths and commits them if the index differs from
// HEAD. It returns the commit's message, "" when it made none: o.Message,
// or without one, FilesMessage of the staged changes.
func commit(ctx context.Context, o Options, env []string) (string, error) {
	paths, err := presentPaths(ctx, o, env)
	if err != nil || len(paths) == 0 {
		return "", err
	}
	paths = append(paths, notData...)
	if _, err := git(ctx, o.Dir, env, append([]string{"add", "--all", "--"}, paths...)...); err != nil {
		return "", fmt.Errorf("stage: %w", err)
	}
	untracked, err := untrackCache(ctx, o, env)
	if err != nil {
		return "", err
	}
	out, err := git(ctx, o.Dir, env, append([]string{"diff", "--cached", "--name-only", "--no-renames", "-z", "--"}, paths...)...)
	if err != nil {
		return "", fmt.Errorf("compare with HEAD: %w", err)
	}
	if out == "" {
		return "", nil // nothing staged differs from HEAD
	}
	msg := o.Message
	if msg == "" {
		msg = FilesMessage(strings.Split(strings.TrimRight(out, "\x00"), "\x00"))
	}
	if untracked {
		return msg, commitIndexOf(ctx, o, env, paths, msg)
	}
	args := append([]string{"commit", "--quiet", "--no-verify", "-m", msg, "--"}, paths...)
	if _, err := git(ctx, o.Dir, env, args...); err != nil {
		return "", commitError(err)
	}
	return msg, nil
}

// untrackCache takes the node's cache (node.CopiesPaths) out of git's
// index, never off the disk: staged by a repository without the
// template's .gitignore, or tracked by an older node. It reports whether
// HEAD tracks some of it, so that the commit must record its removal.
func untrackCache(ctx context.Context, o Options, env []string) (bool, error) {
	args := append([]string{"rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "--"}, notCommitted...)
	if _, err := git(ctx, o.Dir, env, args...); err != nil {
		return false, fmt.Errorf("untrack %s: %w", strings.Join(notCommitted, " "), err)
	}
	args = append([]string{"diff", "--cached", "--name-only", "--diff-filter=D", "-z", "--"}, notCommitted...)
	out, err := git(ctx, o.Dir, env, args...)
	if err != nil {
		return false, fmt.Errorf("compare %s with HEAD: %w", strings.Join(notCommitted, " "), err)
	}
	return out != "", nil
}

// commitIndexOf commits what git's index holds under paths and HEAD's
// files elsewhere, with message msg. `git commit -- paths` cannot record
// untrackCache's removal: it stages the paths' files again from the work
// tree, where the cache stays. So the commit is made from a copy of the
// index in which every other path is HEAD's again, and a person's own
// staged changes stay staged in the index itself.
func commitIndexOf(ctx context.Context, o Options, env []string, paths []string, msg string) error {
	tmp, err := os.MkdirTemp("", "meshnode-commit-")
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	src, err := git(ctx, o.Dir, env, "rev-parse", "--git-path", "index")
	if err != nil {
		return fmt.Errorf("find git's index: %w", err)
	}
	if src = strings.TrimSpace(src); !filepath.IsAbs(src) {
		src = filepath.Join(o.Dir, src)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("copy git's index: %w", err)
	}
	if err := os.WriteFile(index, data, 0o600); err != nil {
		return fmt.Errorf("copy git's index: %w", err)
	}
	env = append(slices.Clip(env), "GIT_INDEX_FILE="+index)
	others := []string{":/"}
	for _, p := range paths {
		if !strings.HasPrefix(p, ":") { // notData's are out of paths already
			others = append(others, ":(exclude)"+p)
		}
	}
	if _, err := git(ctx, o.Dir, env, append([]string{"reset", "--quiet", "HEAD", "--"}, others...)...); err != nil {
		return fmt.Errorf("leave other staged changes out of the commit: %w", err)
	}
	if _, err := git(ctx, o.Dir, env, "commit", "--quiet", "--no-verify", "-m", msg); err != nil {
		return commitError(err)
	}
	return nil
}

// commitError names the one failure of `git commit` a person meets most:
// a machine where git was never told who they are.
func commitError(err error) error {
	var ge *gitError
	if errors.As(err, &ge) {
		for _, s := range []string{"tell me who you are", "empty ident name", "unable to auto-detect email"} {
			if strings.Contains(ge.stderr, s) {
				return fmt.Errorf("commit: %w", ErrNoIdentity)
			}
		}
	}
	return fmt.Errorf("commit: %w", err)
}

// presentPaths keeps the paths that hold something git knows or would
// add: git refuses a pathspec that matches nothing, `git commit` one that
// matches no file known to git, and a node need not have every directory
// (no disputes yet, say) or may have one holding only a running
// heartbeat's lock file (notData) or the copies it never commits.
func presentPaths(ctx context.Context, o Options, env []string) ([]string, error) {
	var out []string
	for _, p := range o.Paths {
		args := append([]string{"ls-files", "-t", "-z", "--cached", "--others", "--exclude-standard", "--", p}, notData...)
		listed, err := git(ctx, o.Dir, env, args...)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", p, err)
		}
		if holdsData(listed) {
			out = append(out, p)
		}
	}
	return out, nil
}

// holdsData reports whether `git ls-files -t -z` listed a file to commit:
// any it tracks, or one it does not track outside the copies.
func holdsData(listed string) bool {
	for _, e := range strings.Split(listed, "\x00") {
		tag, name, ok := strings.Cut(e, " ")
		if ok && (tag != "?" || !underAny(name, notCommitted)) {
			return true
		}
	}
	return false
}

// keepalive makes an empty commit when HEAD is older than o.KeepaliveAfter
// and returns its message, "" when it made none.
func keepalive(ctx context.Context, o Options, env []string) (string, error) {
	out, err := git(ctx, o.Dir, env, "log", "-1", "--format=%ct")
	if err != nil {
		return "", fmt.Errorf("read last commit time: %w", err)
	}
	secs, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return "", fmt.Errorf("read last commit time %q: %w", strings.TrimSpace(out), err)
	}
	age := o.Now().Sub(time.Unix(secs, 0))
	if age < o.KeepaliveAfter {
		return "", nil
	}
	msg := KeepaliveMessage(age)
	if _, err := git(ctx, o.Dir, env, "commit", "--quiet", "--no-verify", "--allow-empty", "-m", msg); err != nil {
		return "", fmt.Errorf("keepalive %w", commitError(err))
	}
	return msg, nil
}
