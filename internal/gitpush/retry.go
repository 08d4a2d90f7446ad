package gitpush

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// push pushes HEAD, rebasing onto the remote and retrying when the push is
// rejected because the remote moved. It returns the attempts made and the
// files whose local edits a rebase had to leave in the stash.
func push(ctx context.Context, o Options, env []string) (attempts int, stashed []string, err error) {
	wait := firstBackoff
	for attempt := 1; ; attempt++ {
		rejected, err := pushOnce(ctx, o, env)
		if err != nil {
			return attempt, stashed, err
		}
		if !rejected {
			return attempt, stashed, nil
		}
		if attempt >= o.Retries {
			return attempt, stashed, fmt.Errorf("push to %s %s after %d attempts: %w", o.Remote, o.Branch, attempt, ErrPushRejected)
		}
		if err := o.Sleep(ctx, wait); err != nil {
			return attempt, stashed, fmt.Errorf("push to %s %s: %w", o.Remote, o.Branch, err)
		}
		wait = min(2*wait, maxBackoff)
		kept, err := rebase(ctx, o, env)
		stashed = append(stashed, kept...)
		if err != nil {
			return attempt, stashed, err
		}
	}
}

// pushOnce passes the gate, when there is one, and pushes HEAD to the
// branch. It reports rejected when the remote
// refused a non-fast-forward update, and an error for anything else.
func pushOnce(ctx context.Context, o Options, env []string) (rejected bool, err error) {
	if err := gate(ctx, o, env); err != nil {
		return false, err
	}
	out, err := git(ctx, o.Dir, env, "push", "--porcelain", o.Remote, "HEAD:refs/heads/"+o.Branch)
	if err == nil {
		return false, nil
	}
	var stderr string
	if ge, ok := err.(*gitError); ok {
		stderr = ge.stderr
	}
	if isRejected(out, stderr) {
		return true, nil
	}
	return false, fmt.Errorf("push to %s %s: %w", o.Remote, o.Branch, err)
}

// movedReasons are the reasons git gives for a ref that another push moved:
// before ours started (fetch first, non-fast-forward) or while it ran (the
// remote's compare-and-swap on the ref failed).
var movedReasons = []string{
	"fetch first", "non-fast-forward", "stale info",
	"cannot lock ref", "failed to update ref", "incorrect old value",
}

// isRejected reads `git push --porcelain` output and stderr: a ref flagged
// "!" for a reason that means the remote moved. Other refusals (a
// protected branch, no permission) are not worth retrying.
func isRejected(porcelain, stderr string) bool {
	flagged := false
	for _, line := range strings.Split(porcelain, "\n") {
		if strings.HasPrefix(line, "!") {
			flagged = true
			if hasMovedReason(line) {
				return true
			}
		}
	}
	return flagged && hasMovedReason(stderr)
}

func hasMovedReason(s string) bool {
	for _, r := range movedReasons {
		if strings.Contains(s, r) {
			return true
		}
	}
	return false
}

// rebase replays the local commits on the remote branch, with a person's
// other edits put aside meanwhile and brought back after. On failure it
// aborts the rebase so the working tree is as it was. It returns the files
// whose edits conflicted with the remote's and stay in the stash.
func rebase(ctx context.Context, o Options, env []string) (kept []string, err error) {
	if upstreamTracksCopies(ctx, o, env) {
		// The copies are a cache: when they cannot be put aside, the
		// rebase goes on, and what it deletes the heartbeat fetches again.
		if err := setCopiesAside(ctx, o, env); err != nil {
			slog.Warn("the copies of peers' traces were not put aside for the rebase; if it deletes them, the next heartbeats fetch them again", "err", err)
		}
		// Back on success, conflict and abort alike; a crash leaves them
		// in copiesAside for the next run.
		defer func() { err = errors.Join(err, putCopiesBack(ctx, o, env, true)) }()
	}
	stashed, err := stash(ctx, o, env)
	if err != nil {
		return nil, err
	}
	err = pullRebase(ctx, o, env)
	if !stashed {
		return nil, err
	}
	kept, uerr := unstash(ctx, o, env)
	if err == nil {
		err = uerr
	}
	return kept, err
}

func pullRebase(ctx context.Context, o Options, env []string) error {
	_, err := git(ctx, o.Dir, env, "pull", "--rebase", "--no-autostash", "--quiet", o.Remote, o.Branch)
	if err == nil {
		return nil
	}
	unmerged, _ := git(ctx, o.Dir, env, "diff", "--name-only", "--diff-filter=U")
	if rebasing(ctx, o, env) {
		if _, aerr := git(ctx, o.Dir, env, "rebase", "--abort"); aerr != nil {
			return fmt.Errorf("rebase onto %s %s failed (%v) and could not be aborted: %w", o.Remote, o.Branch, err, aerr)
		}
	}
	files := strings.Fields(unmerged)
	if len(files) == 0 {
		return fmt.Errorf("rebase onto %s %s: %w", o.Remote, o.Branch, err)
	}
	return fmt.Errorf("rebase onto %s %s: conflict in %s: %w", o.Remote, o.Branch, strings.Join(files, ", "), ErrRebaseConflict)
}

// rebasing reports whether a rebase is in progress: `git pull` can also
// fail before it starts one (the fetch failed, an untracked file is in
// the way).
func rebasing(ctx context.Context, o Options, env []string) bool {
	for _, dir := range []string{"rebase-merge", "rebase-apply"} {
		p, err := gitPath(ctx, o, env, dir)
		if err != nil {
			return true // cannot tell: try to abort
		}
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// gitPath is the path of name in git's directory (`git rev-parse
// --git-path`), made absolute.
func gitPath(ctx context.Context, o Options, env []string, name string) (string, error) {
	out, err := git(ctx, o.Dir, env, "rev-parse", "--git-path", name)
	if err != nil {
		return "", err
	}
	p := strings.TrimSpace(out)
	if !filepath.IsAbs(p) {
		p = filepath.Join(o.Dir, p)
	}
	return p, nil
}
