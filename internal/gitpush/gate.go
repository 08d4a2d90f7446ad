package gitpush

import (
	"context"
	"fmt"
	"strings"
)

// emptyTree is git's empty tree: the base of a branch the remote lacks.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// gate runs before each push of HEAD to o.Branch, when o.Gate is set: it
// pushes HEAD to o.Stage first, so that the remote knows the commit and a
// status can be set on it, then calls o.Gate with the branch's commit as
// last fetched and HEAD. A branch whose rules require a status accepts
// only a commit that already carries it (docs/github.md, "Protecting
// main"), so the status must come before the push, on this very commit.
func gate(ctx context.Context, o Options, env []string) error {
	if o.Gate == nil {
		return nil
	}
	out, err := git(ctx, o.Dir, env, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return fmt.Errorf("read HEAD: %w", err)
	}
	head := strings.TrimSpace(out)
	base := ""
	if out, err := git(ctx, o.Dir, env, "rev-parse", "--verify", "--quiet", "refs/remotes/"+o.Remote+"/"+o.Branch); err == nil {
		base = strings.TrimSpace(out)
	}
	if o.Stage != "" {
		// The stage branch is the heartbeat's own scratch: each run
		// replaces it, so this one push may be forced (+).
		if _, err := git(ctx, o.Dir, env, "push", "--porcelain", o.Remote, "+"+head+":refs/heads/"+o.Stage); err != nil {
			return fmt.Errorf("push the commit to %s %s before checking it: %w", o.Remote, o.Stage, err)
		}
	}
	return o.Gate(ctx, base, head)
}

// Changed lists every path that differs between base and head in the
// repository at dir, as the check workflow lists a pull request's: from
// their merge base, deletions and both sides of a rename included, each
// name whole (NUL-separated). An empty base is a branch the remote lacks:
// every file of head.
func Changed(ctx context.Context, dir, base, head string) ([]string, error) {
	args := []string{"diff", "-z", "--name-only", "--no-renames", "--no-ext-diff", "--no-textconv"}
	if base == "" {
		args = append(args, emptyTree, head)
	} else {
		args = append(args, base+"..."+head)
	}
	out, err := git(ctx, dir, gitEnv(Options{}), args...)
	if err != nil {
		return nil, fmt.Errorf("list the paths changed from %s to %s: %w", orEmpty(base), head, err)
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

func orEmpty(base string) string {
	if base == "" {
		return "nothing"
	}
	return base
}
