package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/actions"
	"github.com/meshnode/meshnode/internal/gitpush"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/pullrequest"
)

func init() {
	register(&command{
		name:    "commit",
		summary: "commit the node's data after a heartbeat, and push it",
		usage: `Usage: meshnode commit [--dir DIR] [--summary FILE] [--push]
                       [--remote NAME] [--branch NAME] [--retries N]
                       [--keepalive-after DURATION] [--check-status]
                       [--now TIME]

Stages the node's files and nothing else (lock files excepted, and the
copies of peers' traces, a cache never committed: ` + strings.Join(node.CopiesPaths, " ") + `):
  ` + strings.Join(node.Paths, " ") + `
and commits them when they changed, with a message that says what changed
(read from the heartbeat's --summary). Other local changes (an edited
README) are left alone and named in one line. Commits carry your git
identity; inside GitHub Actions, github-actions[bot]'s. The commit that
takes copies an older node committed out of git is refused while a merge,
cherry-pick, revert or rebase of yours is in progress.

With --push it pushes every local commit the remote lacks, this run's and
those an earlier run left unpushed. When another push got there first, it
puts your other edits aside (git stash), pulls with --rebase, brings them
back, and tries again, --retries times in all, waiting a little longer each
time. A rebase conflict in the node's files is aborted, leaving the tree as
it was, and the command fails with what to do; an edit of yours that
conflicts with the remote stays in git stash, and the command says so.
When the remote still tracks the copies of peers' traces (an older node
committed them), they wait in git's directory (meshnode-copies) during the
rebase; the next run puts back any that a crash left there. One run at a
time in a checkout: a second started meanwhile stops with an error.

With --keepalive-after, when nothing changed and the last commit is at least
that old, it makes an empty "heartbeat: keepalive" commit: GitHub disables a
scheduled workflow after 60 days without repository activity.

With --check-status (for a branch whose rules require the status
"meshnode check"), before each push it pushes the commit to the branch
` + HeartbeatStage + ` (replacing what it held) so GitHub knows it, checks the
change from the remote branch to the commit as the pull-request gate does
(meshnode check; the heartbeat's own files may change), and sets the
status "meshnode check" on the commit: success, or failure and no push. It
needs GITHUB_TOKEN (statuses: write) and GITHUB_REPOSITORY.

Inside GitHub Actions (GITHUB_ACTIONS=true) it also appends a table of the
heartbeat to the job summary ($GITHUB_STEP_SUMMARY), prints an error
annotation for every hash mismatch and a warning for every unreachable peer,
and sets the step outputs changed, pushed and sha ($GITHUB_OUTPUT).

Examples:
  meshnode heartbeat --summary /tmp/hb.json
  meshnode commit --summary /tmp/hb.json --push --keepalive-after 720h
  meshnode commit --summary /tmp/hb.json --push --check-status   # protected main
  meshnode commit --dir mynode     # commit locally, push yourself

Flags:
`,
		run: runCommitCommand,
	})
}

type commitOptions struct {
	nodeFlags
	summary string
	push    bool
	gated   bool // --check-status
	remote  string
	branch  string
	retries int
	keep    time.Duration
	getenv  func(string) string
}

func runCommitCommand(ctx context.Context, e *env, args []string) error {
	o := commitOptions{getenv: os.Getenv}
	fs := newFlagSet("commit")
	o.add(fs)
	fs.StringVar(&o.summary, "summary", "", "the heartbeat summary JSON to describe the commit with")
	fs.BoolVar(&o.push, "push", false, "push the commit")
	fs.StringVar(&o.remote, "remote", "origin", "the remote to push to")
	fs.StringVar(&o.branch, "branch", "main", "the branch to push to")
	fs.IntVar(&o.retries, "retries", gitpush.DefaultRetries, "push attempts when another push got there first")
	fs.DurationVar(&o.keep, "keepalive-after", 0, "make an empty commit when nothing changed for this long (0: never)")
	fs.BoolVar(&o.gated, "check-status", false, "before each push, check the change as the pull-request gate does and set the status \""+pullrequest.CheckContext+"\" on the commit (needs --push and GITHUB_TOKEN)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run 'meshnode commit -h' for its flags", "commit: unexpected argument %q", fs.Arg(0))
	}
	if o.retries < 1 {
		return usagef("give at least 1", "commit: --retries %d is not a number of attempts", o.retries)
	}
	if o.keep < 0 {
		return usagef("give a duration like 720h, or 0 to turn it off", "commit: --keepalive-after %s is negative", o.keep)
	}
	if o.gated && !o.push {
		return usagef("add --push: the status is set on the commit about to be pushed", "commit: --check-status needs --push")
	}
	return runCommit(ctx, e, o)
}

// runCommit reports the heartbeat to GitHub Actions when running there,
// then commits and pushes, then says what it did.
func runCommit(ctx context.Context, e *env, o commitOptions) error {
	var s *gitpush.Summary
	if o.summary != "" {
		var err error
		if s, err = gitpush.ReadSummary(o.summary); err != nil {
			return usagef("pass the file `meshnode heartbeat --summary FILE` wrote", "commit: %v", err)
		}
	}
	inActions := actions.Running(o.getenv)
	if inActions && s != nil {
		if err := reportToActions(e, o.getenv, s); err != nil {
			return err
		}
	}
	clock, err := o.clock(e)
	if err != nil {
		return err
	}
	gopts := gitpush.Options{
		Dir: o.dir, Message: gitpush.Message(s), Push: o.push,
		Remote: o.remote, Branch: o.branch, Retries: o.retries,
		KeepaliveAfter: o.keep, Now: clock,
	}
	if o.gated {
		if gopts.Gate, err = commitGate(e, o); err != nil {
			return err
		}
		gopts.Stage = HeartbeatStage
	}
	if inActions {
		gopts.AuthorName, gopts.AuthorEmail = gitpush.BotName, gitpush.BotEmail
	}
	res, err := gitpush.CommitAndPush(ctx, gopts)
	printCommit(e, res, err)
	if inActions {
		if oerr := setCommitOutputs(o.getenv, res); oerr != nil && err == nil {
			err = oerr
		}
	}
	return commitError(err, o)
}

// commitError turns what a person can act on into a usage error with the
// action as its hint.
func commitError(err error, o commitOptions) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gitpush.ErrNotRepository):
		return usagef("run it in the clone of your fork, or pass --dir", "commit: %v", err)
	case errors.Is(err, gitpush.ErrNoRemote):
		return usagef("'git remote -v' lists this clone's remotes: pass one with --remote (default origin), or add it with 'git remote add NAME URL'; nothing was committed", "commit: %v", err)
	case errors.Is(err, gitpush.ErrNoIdentity):
		return usagef(`git config --global user.name "Your Name" && git config --global user.email you@example.org`, "commit: %v", err)
	case errors.Is(err, gitpush.ErrRebaseConflict):
		return usagef(fmt.Sprintf("the commit stays local: run 'git pull --rebase %s %s', resolve, then 'meshnode commit --push'", o.remote, o.branch),
			"commit: %v", err)
	case errors.Is(err, gitpush.ErrPushRejected):
		return fmt.Errorf("commit: %w (the commit stays local; the next 'meshnode commit --push' pushes it)", err)
	}
	return fmt.Errorf("commit: %w", err)
}
