package gitpush

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Defaults of Options.
const (
	// DefaultRetries bounds the push attempts: heartbeats run every 30
	// minutes, so more than a few collisions in one run means something
	// else is pushing in a loop, and the next run will try again.
	DefaultRetries = 5
	// DefaultAuthorName and DefaultAuthorEmail are the identity GitHub shows
	// with the Actions avatar for commits made by a workflow.
	DefaultAuthorName  = "github-actions[bot]"
	DefaultAuthorEmail = "41898282+github-actions[bot]@users.noreply.github.com"
	// firstBackoff doubles after each rejected push, up to maxBackoff.
	firstBackoff = 2 * time.Second
	maxBackoff   = 30 * time.Second
)

// DataPaths are a node's data paths: what the heartbeat writes and the
// commit step may commit.
var DataPaths = []string{"MANIFEST.md", "AGENTS.md", "IDENTITY.md", "traces", "validations", "disputes", "mesh-state"}

// Errors a caller branches on.
var (
	// ErrPushRejected: every push attempt was rejected as not a fast-forward.
	ErrPushRejected = errors.New("push rejected: the remote branch kept moving")
	// ErrRebaseConflict: another push changed the same lines; the rebase
	// was aborted and the local commit is left unpushed.
	ErrRebaseConflict = errors.New("rebase conflict")
)

// Options says what to commit and where to push it.
type Options struct {
	Dir         string   // the repository's working tree
	Paths       []string // paths relative to Dir; default DataPaths
	Message     string   // commit message; default MessageNoSummary
	AuthorName  string   // default DefaultAuthorName
	AuthorEmail string   // default DefaultAuthorEmail
	Push        bool     // push the commit, when one was made
	Remote      string   // default "origin"
	Branch      string   // default "main"
	Retries     int      // push attempts; default DefaultRetries
	// Sleep waits between attempts; default a context-aware time.Sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	// KeepaliveAfter, when positive, makes an empty commit when nothing
	// changed and the last commit is at least this old, so that GitHub
	// does not disable the scheduled workflow (it does after 60 days
	// without repository activity).
	KeepaliveAfter time.Duration
	Now            func() time.Time // default time.Now
}

// Result says what CommitAndPush did.
type Result struct {
	Committed bool
	Pushed    bool
	Keepalive bool   // the commit is an empty keepalive commit
	Attempts  int    // push attempts made
	Commit    string // HEAD after the run
}

// CommitAndPush stages o.Paths, commits them when they changed and, with
// o.Push, pushes HEAD to o.Remote/o.Branch. A push rejected because the
// remote moved is followed by `git pull --rebase` and another attempt,
// up to o.Retries attempts with a doubling backoff. A rebase conflict is
// aborted, leaving the working tree clean, and reported as
// ErrRebaseConflict.
func CommitAndPush(ctx context.Context, o Options) (Result, error) {
	o = o.withDefaults()
	env := gitEnv(o)
	var res Result
	committed, err := commit(ctx, o, env)
	if err != nil {
		return res, err
	}
	if !committed && o.KeepaliveAfter > 0 {
		if committed, err = keepalive(ctx, o, env); err != nil {
			return res, err
		}
		res.Keepalive = committed
	}
	res.Committed = committed
	if o.Push && committed {
		res.Attempts, err = push(ctx, o, env)
		res.Pushed = err == nil
	}
	head, herr := git(ctx, o.Dir, env, "rev-parse", "HEAD")
	if herr == nil {
		res.Commit = strings.TrimSpace(head)
	}
	return res, err
}

func (o Options) withDefaults() Options {
	if len(o.Paths) == 0 {
		o.Paths = DataPaths
	}
	if o.Message == "" {
		o.Message = MessageNoSummary
	}
	if o.AuthorName == "" {
		o.AuthorName = DefaultAuthorName
	}
	if o.AuthorEmail == "" {
		o.AuthorEmail = DefaultAuthorEmail
	}
	if o.Remote == "" {
		o.Remote = "origin"
	}
	if o.Branch == "" {
		o.Branch = "main"
	}
	if o.Retries <= 0 {
		o.Retries = DefaultRetries
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// gitEnv sets the identity for both author and committer, and keeps git
// from prompting for credentials in a non-interactive run.
func gitEnv(o Options) []string {
	return append(os.Environ(),
		"GIT_AUTHOR_NAME="+o.AuthorName, "GIT_AUTHOR_EMAIL="+o.AuthorEmail,
		"GIT_COMMITTER_NAME="+o.AuthorName, "GIT_COMMITTER_EMAIL="+o.AuthorEmail,
		"GIT_TERMINAL_PROMPT=0",
	)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// commit stages the paths and commits them if the index differs from HEAD.
func commit(ctx context.Context, o Options, env []string) (bool, error) {
	paths, err := presentPaths(ctx, o, env)
	if err != nil || len(paths) == 0 {
		return false, err
	}
	if _, err := git(ctx, o.Dir, env, append([]string{"add", "--all", "--"}, paths...)...); err != nil {
		return false, fmt.Errorf("stage: %w", err)
	}
	_, err = git(ctx, o.Dir, env, append([]string{"diff", "--cached", "--quiet", "--"}, paths...)...)
	if err == nil {
		return false, nil
	}
	if exitCode(err) != 1 {
		return false, fmt.Errorf("compare with HEAD: %w", err)
	}
	args := append([]string{"commit", "--quiet", "--no-verify", "-m", o.Message, "--"}, paths...)
	if _, err := git(ctx, o.Dir, env, args...); err != nil {
		return false, fmt.Errorf("commit: %w", err)
	}
	return true, nil
}

// presentPaths keeps the paths that exist on disk or in the index: git
// refuses a pathspec that matches nothing, and a node need not have every
// directory (no disputes yet, say).
func presentPaths(ctx context.Context, o Options, env []string) ([]string, error) {
	var out []string
	for _, p := range o.Paths {
		if _, err := os.Lstat(filepath.Join(o.Dir, p)); err == nil {
			out = append(out, p)
			continue
		}
		tracked, err := git(ctx, o.Dir, env, "ls-files", "--", p)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", p, err)
		}
		if strings.TrimSpace(tracked) != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// keepalive makes an empty commit when HEAD is older than o.KeepaliveAfter.
func keepalive(ctx context.Context, o Options, env []string) (bool, error) {
	out, err := git(ctx, o.Dir, env, "log", "-1", "--format=%ct")
	if err != nil {
		return false, fmt.Errorf("read last commit time: %w", err)
	}
	secs, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return false, fmt.Errorf("read last commit time %q: %w", strings.TrimSpace(out), err)
	}
	age := o.Now().Sub(time.Unix(secs, 0))
	if age < o.KeepaliveAfter {
		return false, nil
	}
	msg := KeepaliveMessage(age)
	if _, err := git(ctx, o.Dir, env, "commit", "--quiet", "--no-verify", "--allow-empty", "-m", msg); err != nil {
		return false, fmt.Errorf("keepalive commit: %w", err)
	}
	return true, nil
}
