package pullrequest

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/go-github/v60/github"
)

// CheckContext names the pull-request gate wherever GitHub shows it: the
// job of .github/workflows/check.yml and the commit status it reports on
// the pull request's head. A repository makes this one name a required
// check, and it covers both a stranger's pull request (checked on
// pull_request_target) and the node's own scoring pull request (checked by
// a workflow_dispatch the heartbeat starts, since GitHub starts no workflow
// for a pull request opened with the job's token).
const CheckContext = "meshnode check"

// CheckWorkflow is the file name of the gate's workflow.
const CheckWorkflow = "check.yml"

// Status is what the gate reports on a commit.
type Status struct {
	State       string // "success", "failure", "error" or "pending"
	Description string // one line; GitHub keeps 140 characters
	TargetURL   string // the run's page, or empty
}

// ReportStatus sets the gate's commit status (CheckContext) on sha.
func ReportStatus(ctx context.Context, gh *github.Client, owner, repo, sha string, s Status) error {
	if gh == nil || owner == "" || repo == "" || sha == "" {
		return errors.New("commit status: a client, an owner, a repository and a commit are needed")
	}
	st := &github.RepoStatus{
		State: github.String(s.State), Context: github.String(CheckContext),
		Description: github.String(clipTo(s.Description, 140)),
	}
	if s.TargetURL != "" {
		st.TargetURL = github.String(s.TargetURL)
	}
	if _, _, err := gh.Repositories.CreateStatus(ctx, owner, repo, sha, st); err != nil {
		return fmt.Errorf("commit status on %s: %w", sha, err)
	}
	return nil
}

// EnsureCheck starts the gate for the pull request number, whose head is
// sha and which merges into base, unless sha already has the gate's
// status: a workflow_dispatch of CheckWorkflow on base (default
// DefaultBase), with the pull request's number as input. It reports whether it started one. A run
// that was dispatched but has not reported yet is dispatched again by the
// next heartbeat, which the workflow's concurrency group makes harmless.
func EnsureCheck(ctx context.Context, gh *github.Client, owner, repo, base string, number int, sha string) (bool, error) {
	if base == "" {
		base = DefaultBase
	}
	if gh == nil || owner == "" || repo == "" || number <= 0 || sha == "" {
		return false, errors.New("check: a client, an owner, a repository, a pull request and its head are needed")
	}
	combined, _, err := gh.Repositories.GetCombinedStatus(ctx, owner, repo, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return false, fmt.Errorf("check: read the statuses of %s: %w", sha, err)
	}
	for _, s := range combined.Statuses {
		if s.GetContext() == CheckContext {
			return false, nil
		}
	}
	_, err = gh.Actions.CreateWorkflowDispatchEventByFileName(ctx, owner, repo, CheckWorkflow, github.CreateWorkflowDispatchEventRequest{
		Ref: base, Inputs: map[string]interface{}{"pr": strconv.Itoa(number)},
	})
	if err != nil {
		return false, fmt.Errorf("check: start %s for pull request #%d: %w", CheckWorkflow, number, err)
	}
	return true, nil
}

// clipTo keeps s within n bytes, on a rune boundary.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
