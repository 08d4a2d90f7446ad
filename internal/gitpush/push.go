package gitpush

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/node"
)

// Defaults of Options.
const (
	// DefaultRetries bounds the push attempts: heartbeats run every 30
	// minutes, so more than a few collisions in one run means something
	// else is pushing in a loop, and the next run will try again.
	DefaultRetries = 5
	// BotName and BotEmail are the identity GitHub shows with the Actions
	// avatar for commits made by a workflow. Outside Actions commits carry
	// the person's own git identity.
	BotName  = "github-actions[bot]"
	BotEmail = "41898282+github-actions[bot]@users.noreply.github.com"
	// firstBackoff doubles after each rejected push, up to maxBackoff.
	firstBackoff = 2 * time.Second
	maxBackoff   = 30 * time.Second
)

// DataPaths are the node's files (docs/design.md, "The node's directory"):
// what init, people and the heartbeat write, and all the commit step may
// commit. mesh.yaml is one: until it is pushed, the workflow's gate sees
// the template's placeholder and skips every heartbeat.
var DataPaths = node.Paths

// notData are files under DataPaths that are never committed: the empty
// lock files of a running heartbeat (the template's .gitignore lists them
// too, but a repository need not have it).
var notData = []string{":(exclude,glob)mesh-state/*.lock"}

// lockFiles is the pathspec of those lock files.
var lockFiles = strings.Replace(notData[0], "exclude,", "", 1)

// notCommitted is the node's cache under DataPaths, the copies of peers'
// traces: kept beside the checkout, never committed, and taken out of
// git's index when an older node committed it (docs/decisions.md, "What
// the node commits").
var notCommitted = node.CopiesPaths

// excluded returns pathspecs that leave paths out.
func excluded(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(exclude)" + p
	}
	return out
}

// Errors a caller branches on.
var (
	// ErrPushRejected: every push attempt was rejected as not a fast-forward.
	ErrPushRejected = errors.New("push rejected: the remote branch kept moving")
	// ErrRebaseConflict: another push changed the same lines; the rebase
	// was aborted and the local commit is left unpushed.
	ErrRebaseConflict = errors.New("another push changed the same lines")
	// ErrNoIdentity: git does not know who commits (user.name and
	// user.email are not set).
	ErrNoIdentity = errors.New("git does not know who you are")
	// ErrNotRepository: Dir is not inside a git working tree.
	ErrNotRepository = errors.New("not a git repository")
	// ErrNoRemote: Push names a remote the repository does not have.
	ErrNoRemote = errors.New("no such remote")
	// ErrCommitRunning: another meshnode commit holds this checkout.
	ErrCommitRunning = errors.New("another meshnode commit is running in this checkout")
)

// Options says what to commit and where to push it.
type Options struct {
	Dir         string   // the repository's working tree
	Paths       []string // paths relative to Dir; default DataPaths
	Message     string   // commit message; default FilesMessage of what it commits
	AuthorName  string   // default: git's own (user.name)
	AuthorEmail string   // default: git's own (user.email)
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
	// Gate, when set, is called before each push to Branch with the
	// branch's commit as last fetched ("" when the remote lacks it) and
	// HEAD, the commit about to be pushed; an error stops the push and is
	// returned as is. The heartbeat checks its own change there and sets
	// the required status on HEAD (meshnode commit --check-status).
	Gate func(ctx context.Context, base, head string) error
	// Stage, with Gate, is a branch HEAD is pushed to before Gate is
	// called, replacing what it held, so that the remote knows the commit
	// before it is given a status.
	Stage string
}

// Result says what CommitAndPush did.
type Result struct {
	Committed bool
	Message   string // the message of this run's commit, when it made one
	Pushed    bool
	Keepalive bool   // the commit is an empty keepalive commit
	Attempts  int    // push attempts made
	Commit    string // HEAD after the run
	// Unpushed is how many local commits the push was to carry (this
	// run's and those an earlier run left unpushed); -1 when unknown.
	Unpushed int
	// Others are the changes outside the node's files, left alone:
	// paths as `git status` names them (a directory ends in "/").
	Others []string
	// Stashed lists files whose local edits conflicted with the remote's
	// when the push had to rebase: the edits are kept in `git stash`.
	Stashed []string
}

// CommitAndPush stages o.Paths, commits them when they changed and, with
// o.Push, pushes HEAD to o.Remote/o.Branch when it holds commits the
// remote lacks, this run's or an earlier one's. Other local changes are
// left alone and listed in Result.Others. A push rejected because the
// remote moved is followed by `git pull --rebase` (other local changes
// stashed meanwhile) and another attempt, up to o.Retries attempts with a
// doubling backoff. A rebase conflict is aborted, leaving the working tree
// as it was, and reported as ErrRebaseConflict.
func CommitAndPush(ctx context.Context, o Options) (Result, error) {
	o = o.withDefaults()
	env := gitEnv(o)
	var res Result
	if _, err := git(ctx, o.Dir, env, "rev-parse", "--is-inside-work-tree"); err != nil {
		if ctx.Err() != nil {
			return res, err
		}
		return res, fmt.Errorf("%s: %w", o.Dir, ErrNotRepository)
	}
	unlock, err := lockCommit(ctx, o, env)
	if err != nil {
		return res, err
	}
	defer unlock()
	// Copies a run that died mid-rebase left aside come back first.
	if err := putCopiesBack(ctx, o, env, false); err != nil {
		return res, err
	}
	if o.Push {
		// A remote that does not exist is a mistake to fix before
		// anything is committed, not a push failure after.
		if _, err := git(ctx, o.Dir, env, "remote", "get-url", o.Remote); err != nil {
			if ctx.Err() != nil {
				return res, err
			}
			return res, fmt.Errorf("remote %q: %w", o.Remote, ErrNoRemote)
		}
	}
	msg, err := commit(ctx, o, env)
	if err != nil {
		return res, err
	}
	if msg == "" && o.KeepaliveAfter > 0 {
		if msg, err = keepalive(ctx, o, env); err != nil {
			return res, err
		}
		res.Keepalive = msg != ""
	}
	committed := msg != ""
	res.Message = msg
	res.Committed = committed
	if res.Others, err = otherChanges(ctx, o, env); err != nil {
		return res, err
	}
	if o.Push {
		if res.Unpushed, err = unpushed(ctx, o, env); err != nil {
			return res, err
		}
		if res.Unpushed != 0 {
			res.Attempts, res.Stashed, err = push(ctx, o, env)
			res.Pushed = err == nil
		}
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

// gitEnv sets the identity, when one is given, for both author and
// committer, and keeps git from prompting for credentials in a
// non-interactive run.
func gitEnv(o Options) []string {
	env := append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	if o.AuthorName != "" {
		env = append(env, "GIT_AUTHOR_NAME="+o.AuthorName, "GIT_COMMITTER_NAME="+o.AuthorName)
	}
	if o.AuthorEmail != "" {
		env = append(env, "GIT_AUTHOR_EMAIL="+o.AuthorEmail, "GIT_COMMITTER_EMAIL="+o.AuthorEmail)
	}
	return env
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
