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
	// The copies are never staged, so a failure before untrackCache
	// leaves none of them in the person's index.
	keepOut, err := notIgnored(ctx, o, env, notCommitted)
	if err != nil {
		return "", err
	}
	untracked, err := untrackCache(ctx, o, env)
	if err != nil {
		return "", err
	}
	add := append(append([]string{"add", "--all", "--"}, paths...), excluded(keepOut)...)
	if _, err := git(ctx, o.Dir, env, add...); err != nil {
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

// notIgnored keeps the paths git does not ignore. `git add` fails on an
// exclude pathspec that names an ignored path, and adds no untracked
// file an ignore rule covers anyway.
func notIgnored(ctx context.Context, o Options, env []string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		_, err := git(ctx, o.Dir, env, "check-ignore", "--quiet", "--no-index", "--", p)
		switch {
		case err == nil:
		case exitCode(err) == 1:
			out = append(out, p)
		default:
			return nil, fmt.Errorf("is %s ignored: %w", p, err)
		}
	}
	return out, nil
}

// commitIndexOf commits what git's index holds under paths and HEAD's
// files elsewhere, with message msg. `git commit -- paths` cannot record
// untrackCache's removal: it stages the paths' files again from the work
// tree, where the cache stays. So the commit is made from a copy of the
// index in which every other path, and a lock file under paths, is HEAD's
// again, and a person's own staged changes stay staged in the index
// itself. It is built with write-tree and commit-tree, which read no
// merge or sequencer state, and refused while one is in progress, as `git
// commit -- paths` refuses.
func commitIndexOf(ctx context.Context, o Options, env []string, paths []string, msg string) error {
	if op, err := inProgress(ctx, o, env); err != nil || op != "" {
		if err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return fmt.Errorf("commit: cannot do a partial commit during a %s: conclude or abort it, then commit again", op)
	}
	head, err := git(ctx, o.Dir, env, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return fmt.Errorf("commit: read HEAD: %w", err)
	}
	head = strings.TrimSpace(head)
	tmp, err := os.MkdirTemp("", "meshnode-commit-")
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if err := copyIndex(ctx, o, env, index); err != nil {
		return err
	}
	env = append(slices.Clip(env), "GIT_INDEX_FILE="+index)
	others := []string{":/"}
	for _, p := range paths {
		if !strings.HasPrefix(p, ":") { // notData's are out of paths already
			others = append(others, ":(exclude)"+p)
		}
	}
	for _, ps := range [][]string{others, {lockFiles}} {
		if _, err := git(ctx, o.Dir, env, append([]string{"reset", "--quiet", head, "--"}, ps...)...); err != nil {
			return fmt.Errorf("leave other staged changes out of the commit: %w", err)
		}
	}
	return commitTree(ctx, o, env, head, msg)
}

// inProgress names the operation a person has under way that a commit
// would conclude (a merge, a cherry-pick, a revert, a rebase), "" for
// none.
func inProgress(ctx context.Context, o Options, env []string) (string, error) {
	for _, h := range []struct{ ref, op string }{{"MERGE_HEAD", "merge"}, {"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"}} {
		_, err := git(ctx, o.Dir, env, "rev-parse", "--quiet", "--verify", h.ref)
		if err == nil {
			return h.op, nil
		}
		if exitCode(err) != 1 {
			return "", fmt.Errorf("look for %s: %w", h.ref, err)
		}
	}
	if rebasing(ctx, o, env) {
		return "rebase", nil
	}
	return "", nil
}

// copyIndex copies git's index to the file index.
func copyIndex(ctx context.Context, o Options, env []string, index string) error {
	src, err := gitPath(ctx, o, env, "index")
	if err != nil {
		return fmt.Errorf("find git's index: %w", err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("copy git's index: %w", err)
	}
	if err := os.WriteFile(index, data, 0o600); err != nil {
		return fmt.Errorf("copy git's index: %w", err)
	}
	return nil
}

// commitTree commits the tree of the index env names on HEAD and moves
// HEAD to it, unless HEAD moved meanwhile.
func commitTree(ctx context.Context, o Options, env []string, head, msg string) error {
	tree, err := git(ctx, o.Dir, env, "write-tree")
	if err != nil {
		return fmt.Errorf("commit: write the tree: %w", err)
	}
	args := []string{"commit-tree", strings.TrimSpace(tree), "-p", head, "-m", msg}
	if sign, _ := git(ctx, o.Dir, env, "config", "--type=bool", "--get", "commit.gpgsign"); strings.TrimSpace(sign) == "true" {
		args = append(args, "-S")
	}
	c, err := git(ctx, o.Dir, env, args...)
	if err != nil {
		return commitError(err)
	}
	if _, err := git(ctx, o.Dir, env, "update-ref", "-m", "commit: "+firstLine(msg), "HEAD", strings.TrimSpace(c), head); err != nil {
		return fmt.Errorf("commit: move HEAD: %w", err)
	}
	return nil
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
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
