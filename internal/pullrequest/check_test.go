package pullrequest

import (
	"context"
	"testing"

	"github.com/meshnode/meshnode/internal/pullrequest/fakegithub"
)

// TestTheScoringPullRequestGetsItsCheck: GitHub starts no workflow for a
// pull request opened with the job's token, so after Sync the heartbeat
// dispatches the check workflow for the pull request's head, once per
// head: not again while that head has the gate's status, and again when
// new drafts move the head.
func TestTheScoringPullRequestGetsItsCheck(t *testing.T) {
	f, c := fakegithub.New(t, nil)
	ctx := context.Background()
	o := Options{Client: c, Owner: fakegithub.Owner, Repo: fakegithub.Repo, Drafts: []Draft{draft("aaaaaaaaaaaa", "22")}}
	res, err := Sync(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Head == "" || res.Head != f.Head(DefaultBranch) {
		t.Fatalf("Sync gave head %q, the branch is at %q", res.Head, f.Head(DefaultBranch))
	}
	started, err := EnsureCheck(ctx, c, fakegithub.Owner, fakegithub.Repo, DefaultBase, res.Number, res.Head)
	if err != nil || !started {
		t.Fatalf("EnsureCheck = %v, %v; want a dispatch", started, err)
	}
	d := f.Dispatches()
	if len(d) != 1 || d[0].Workflow != CheckWorkflow || d[0].Ref != DefaultBase || d[0].Inputs["pr"] != "1" {
		t.Fatalf("dispatches = %+v, want check.yml on main for pull request 1", d)
	}

	// The dispatched run reports its status on the head; the next
	// heartbeat then starts nothing.
	if err := ReportStatus(ctx, c, fakegithub.Owner, fakegithub.Repo, res.Head, Status{State: "failure", Description: "2 problems"}); err != nil {
		t.Fatal(err)
	}
	if got := f.Statuses(res.Head); len(got) != 1 || got[0].Context != CheckContext || got[0].State != "failure" {
		t.Fatalf("statuses = %+v, want one %q failure", got, CheckContext)
	}
	res, err = Sync(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if started, err := EnsureCheck(ctx, c, fakegithub.Owner, fakegithub.Repo, DefaultBase, res.Number, res.Head); err != nil || started {
		t.Fatalf("EnsureCheck on a checked head = %v, %v; want nothing started", started, err)
	}

	// New drafts move the head: it is checked again.
	o.Drafts = append(o.Drafts, draft("bbbbbbbbbbbb", "12"))
	res, err = Sync(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if started, err := EnsureCheck(ctx, c, fakegithub.Owner, fakegithub.Repo, DefaultBase, res.Number, res.Head); err != nil || !started {
		t.Fatalf("EnsureCheck on a new head = %v, %v; want a dispatch", started, err)
	}
	if n := len(f.Dispatches()); n != 2 {
		t.Errorf("%d dispatches, want 2", n)
	}
}

func TestReportStatusRefusesAnUnknownCommit(t *testing.T) {
	_, c := fakegithub.New(t, nil)
	err := ReportStatus(context.Background(), c, fakegithub.Owner, fakegithub.Repo, "0000000000000000000000000000000000000000", Status{State: "success"})
	if err == nil {
		t.Error("a status on a commit GitHub does not know was accepted")
	}
}
