package gitpush

import (
	"context"
	"errors"
	"fmt"
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
	args := append([]string{"commit", "--quiet", "--no-verify", "-m", msg, "--"}, paths...)
	if _, err := git(ctx, o.Dir, env, args...); err != nil {
		return "", commitError(err)
	}
	return msg, nil
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
// heartbeat's lock file (notData).
func presentPaths(ctx context.Context, o Options, env []string) ([]string, error) {
	var out []string
	for _, p := range o.Paths {
		args := append([]string{"ls-files", "--cached", "--others", "--exclude-standard", "--", p}, notData...)
		listed, err := git(ctx, o.Dir, env, args...)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", p, err)
		}
		if strings.TrimSpace(listed) != "" {
			out = append(out, p)
		}
	}
	return out, nil
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
