package gitpush

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// otherChanges lists the working tree's changes outside o.Paths, as
// `git status` names them: a person's edits the commit leaves alone.
func otherChanges(ctx context.Context, o Options, env []string) ([]string, error) {
	out, err := git(ctx, o.Dir, env, "status", "--porcelain=v1", "-z", "--untracked-files=normal")
	if err != nil {
		return nil, fmt.Errorf("list local changes: %w", err)
	}
	var others []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		xy, name := f[:2], f[3:]
		if strings.ContainsAny(xy, "RC") {
			i++ // a rename or copy is followed by its source
		}
		if !underAny(name, o.Paths) {
			others = append(others, name)
		}
	}
	return others, nil
}

// underAny reports whether the slash-separated name is one of paths or
// inside one of them.
func underAny(name string, paths []string) bool {
	name = strings.TrimSuffix(name, "/")
	for _, p := range paths {
		p = path.Clean(p)
		if name == p || strings.HasPrefix(name, p+"/") {
			return true
		}
	}
	return false
}

// unpushed counts the commits of HEAD that o.Remote/o.Branch lacks, as the
// remote-tracking branch last saw it (a push that lost a race leaves its
// commit counted here), or -1 when there is no remote-tracking branch.
func unpushed(ctx context.Context, o Options, env []string) (int, error) {
	ref := "refs/remotes/" + o.Remote + "/" + o.Branch
	if _, err := git(ctx, o.Dir, env, "rev-parse", "--verify", "--quiet", ref); err != nil {
		if exitCode(err) == 1 {
			return -1, nil
		}
		return 0, fmt.Errorf("find %s: %w", ref, err)
	}
	out, err := git(ctx, o.Dir, env, "rev-list", "--count", ref+"..HEAD")
	if err != nil {
		return 0, fmt.Errorf("count commits to push: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("count commits to push: %q: %w", strings.TrimSpace(out), err)
	}
	return n, nil
}

// stash puts a person's uncommitted edits of tracked files aside, so a
// rebase can run on a clean tree; it reports whether there were any.
// Untracked files stay where they are: a rebase leaves them alone.
func stash(ctx context.Context, o Options, env []string) (bool, error) {
	out, err := git(ctx, o.Dir, env, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return false, fmt.Errorf("list local changes: %w", err)
	}
	if strings.TrimSpace(out) == "" {
		return false, nil
	}
	if _, err := git(ctx, o.Dir, env, "stash", "push", "--quiet", "-m", "meshnode commit: local changes put aside to rebase"); err != nil {
		return false, fmt.Errorf("put local changes aside: %w", err)
	}
	return true, nil
}

// unstash brings back what stash put aside. When the edits conflict with
// what the rebase brought, the tree is reset to the rebased commit and the
// edits stay in the stash; the conflicting files are returned.
func unstash(ctx context.Context, o Options, env []string) ([]string, error) {
	_, err := git(ctx, o.Dir, env, "stash", "pop", "--quiet")
	if err == nil {
		return nil, nil
	}
	unmerged, _ := git(ctx, o.Dir, env, "diff", "--name-only", "--diff-filter=U")
	files := strings.Fields(unmerged)
	if len(files) == 0 {
		return nil, fmt.Errorf("bring back local changes (they are in 'git stash'): %w", err)
	}
	// Every edit is still in the stash, which a failed pop keeps; the
	// reset only takes the conflict markers out of the person's files.
	if _, rerr := git(ctx, o.Dir, env, "reset", "--hard", "--quiet"); rerr != nil {
		return files, fmt.Errorf("undo a conflicting 'git stash pop' (the changes are in 'git stash'): %w", rerr)
	}
	return files, nil
}
