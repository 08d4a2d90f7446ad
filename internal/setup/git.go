package setup

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// OriginRemote returns the URL of dir's "origin" remote, as git prints it.
func OriginRemote(dir string) (string, error) {
	out, err := git(context.Background(), dir, "remote", "get-url", "origin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// LastCommit returns the committer date of the last commit in dir.
func LastCommit(ctx context.Context, dir string) (time.Time, error) {
	out, err := git(ctx, dir, "log", "-1", "--format=%cI")
	if err != nil {
		return time.Time{}, err
	}
	out = strings.TrimSpace(out)
	if out == "" {
		return time.Time{}, fmt.Errorf("git log in %s: no commits yet", dir)
	}
	t, err := time.Parse(time.RFC3339, out)
	if err != nil {
		return time.Time{}, fmt.Errorf("git log in %s: date %q: %w", dir, out, err)
	}
	return t, nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := execGit(ctx, dir, args...).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return "", fmt.Errorf("git %s in %s: %s", strings.Join(args, " "), dir, msg)
	}
	return string(out), nil
}

// execGit is git with args, run in dir.
func execGit(ctx context.Context, dir string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
}
