package main

import (
	"context"
	"fmt"

	"github.com/meshnode/meshnode/internal/actions"
	"github.com/meshnode/meshnode/internal/check"
	"github.com/meshnode/meshnode/internal/gitpush"
	"github.com/meshnode/meshnode/internal/pullrequest"
	"github.com/meshnode/meshnode/internal/setup"
)

// HeartbeatStage is the branch `commit --check-status` pushes each commit
// to before it checks it: GitHub takes a status only on a commit it
// knows, and a branch that requires the status takes only a commit that
// already has it (docs/github.md, "Protecting main").
const HeartbeatStage = "meshnode/heartbeat"

// commitGate returns the gitpush gate of `commit --check-status`. Before
// each push it runs the pull-request gate over the heartbeat's own change
// (every path from the branch as fetched to the commit, the heartbeat's
// files allowed: check.Options.Heartbeat), sets the result as the commit
// status "meshnode check" on the commit, and stops the push on a problem.
// It needs the config and a token first, so a missing one stops the
// command before anything is committed.
func commitGate(e *env, o commitOptions) (func(ctx context.Context, base, head string) error, error) {
	cfg, err := loadCheckConfig(o.dir)
	if err != nil {
		return nil, err
	}
	client, owner, repo, err := githubClient("commit --check-status", o.dir, o.getenv, setup.OriginRemote)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, base, head string) error {
		files, err := gitpush.Changed(ctx, o.dir, base, head)
		if err != nil {
			return err
		}
		var problems []check.Problem
		if len(files) > 0 { // no path changed (a keepalive commit): nothing to check
			problems = check.Check(check.Options{Dir: o.dir, Base: o.dir, Files: files, Agent: cfg.Agent, URL: cfg.URL, Heartbeat: true})
		}
		printCheckProblems(e, o.dir, problems, actions.Running(o.getenv))
		st := checkStatus(len(problems), owner, repo, o.getenv)
		if err := pullrequest.ReportStatus(ctx, client, owner, repo, head, st); err != nil {
			return err
		}
		if len(problems) > 0 {
			fmt.Fprintf(e.stderr, "meshnode: commit: the commit fails the gate, so it is not pushed (the status on %s says so)\n", short(head))
			return &problemsFound{n: len(problems)}
		}
		return nil
	}, nil
}
