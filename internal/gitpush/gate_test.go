package gitpush

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// gateCall is what the gate saw: its arguments, and the remote as it was
// then.
type gateCall struct {
	base, head  string
	stage, main string
	changed     []string
}

// TestGateSeesEachCommitOnTheStageBeforeTheBranchMoves: before every push
// to the branch the commit is already on the stage branch (so GitHub knows
// it and can take a status on it), the branch has not moved yet, and the
// gate is given the branch's commit as base; after a rebase it is asked
// again about the new commit, which is the one that lands.
func TestGateSeesEachCommitOnTheStageBeforeTheBranchMoves(t *testing.T) {
	r := newRemote(t)
	ours, theirs := r.clone(), r.clone()
	start := strings.TrimSpace(run(t, ours, "git", "rev-parse", "HEAD"))
	pushChange(t, theirs, "validations/val-aaaaaaaaaaaa.md", "theirs\n", "heartbeat: 1 validation published")
	writeFile(t, ours, "traces/ours.md", "ours\n")
	var calls []gateCall
	g := func(ctx context.Context, base, head string) error {
		changed, err := Changed(ctx, ours, base, head)
		if err != nil {
			return err
		}
		calls = append(calls, gateCall{base: base, head: head, changed: changed,
			stage: strings.TrimSpace(run(t, r.bare, "git", "rev-parse", "meshnode/heartbeat")),
			main:  strings.TrimSpace(run(t, r.bare, "git", "rev-parse", "main"))})
		return nil
	}
	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Sleep: (&sleeps{}).sleep, Gate: g, Stage: "meshnode/heartbeat"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed || res.Attempts != 2 || len(calls) != 2 {
		t.Fatalf("result %+v, %d gate calls; want pushed on attempt 2 after 2 gates", res, len(calls))
	}
	theirsHead := strings.TrimSpace(run(t, theirs, "git", "rev-parse", "HEAD"))
	for i, c := range calls {
		if c.stage != c.head || c.main == c.head {
			t.Errorf("gate %d: stage %s, main %s, head %s; want the head staged and main not yet moved", i, c.stage, c.main, c.head)
		}
		if !slices.Equal(c.changed, []string{"traces/ours.md"}) {
			t.Errorf("gate %d: changed %q, want only our trace", i, c.changed)
		}
	}
	if calls[0].base != start || calls[1].base != theirsHead {
		t.Errorf("bases %s, %s; want the branch as fetched: %s, then %s", calls[0].base, calls[1].base, start, theirsHead)
	}
	if landed := strings.TrimSpace(run(t, r.bare, "git", "rev-parse", "main")); landed != calls[1].head || landed != res.Commit {
		t.Errorf("main is %s; want the commit the last gate passed, %s", landed, calls[1].head)
	}
}

// TestGateRefusalStopsThePush: a gate's error is returned as is and the
// branch does not move.
func TestGateRefusalStopsThePush(t *testing.T) {
	r := newRemote(t)
	ours := r.clone()
	before := strings.TrimSpace(run(t, r.bare, "git", "rev-parse", "main"))
	writeFile(t, ours, "traces/ours.md", "ours\n")
	refused := errors.New("refused")
	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Sleep: (&sleeps{}).sleep,
		Gate: func(context.Context, string, string) error { return refused }})
	if !errors.Is(err, refused) || res.Pushed {
		t.Fatalf("err %v, pushed %v; want the gate's error and no push", err, res.Pushed)
	}
	if after := strings.TrimSpace(run(t, r.bare, "git", "rev-parse", "main")); after != before {
		t.Errorf("main moved to %s past a refusing gate", after)
	}
}
