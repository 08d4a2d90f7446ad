package gitpush

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	bot    = BotName + " <" + BotEmail + ">"
	person = "Test Person <person@example.org>" // the identity isolateGit gives git
)

func TestCommitAndPushCommitsOnlyDataPathsAsTheGivenIdentity(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	writeFile(t, dir, "traces/one.md", "# One\n")
	writeFile(t, dir, "mesh-state/ledger.json", "{}\n")
	writeFile(t, dir, "mesh-state/heartbeat.lock", "")
	writeFile(t, dir, "mesh.yaml", "agent: ada\n")
	writeFile(t, dir, "notes.txt", "not node data\n")
	s := &sleeps{}

	res, err := CommitAndPush(context.Background(), Options{Dir: dir, Message: "heartbeat: 1 trace published", Push: true, Sleep: s.sleep,
		AuthorName: BotName, AuthorEmail: BotEmail})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || !res.Pushed || res.Attempts != 1 {
		t.Errorf("result = %+v, want committed and pushed in 1 attempt", res)
	}
	if got, want := r.log()[0], bot+": heartbeat: 1 trace published"; got != want {
		t.Errorf("remote head = %q, want %q", got, want)
	}
	if got := r.show("traces/one.md"); got != "# One\n" {
		t.Errorf("traces/one.md on remote = %q", got)
	}
	files := run(t, r.bare, "git", "ls-tree", "-r", "--name-only", "main")
	if strings.Contains(files, "notes.txt") || strings.Contains(files, ".lock") {
		t.Errorf("a file that is not the node's was committed:\n%s", files)
	}
	if got := r.show("mesh.yaml"); got != "agent: ada\n" {
		t.Errorf("mesh.yaml on remote = %q", got)
	}
	if !slices.Equal(res.Others, []string{"notes.txt"}) {
		t.Errorf("others = %q, want notes.txt named", res.Others)
	}
	if len(s.got) != 0 {
		t.Errorf("slept %v on a clean push", s.got)
	}
}

func TestCommitAndPushMakesNoCommitWhenNothingChanged(t *testing.T) {
	tests := []struct {
		name  string
		touch func(t *testing.T, dir string)
	}{
		{"untouched tree", func(t *testing.T, dir string) {}},
		{"file rewritten with the same bytes", func(t *testing.T, dir string) {
			writeFile(t, dir, "MANIFEST.md", "# MANIFEST\n\nsequence: 1\n")
		}},
		{"change outside the data paths", func(t *testing.T, dir string) {
			writeFile(t, dir, "README.md", "edited by hand\n")
		}},
		// git refused the pathspec mesh-state, which then matched nothing
		// but an excluded lock file: "pathspec 'mesh-state' did not match".
		{"mesh-state holding only a lock file", func(t *testing.T, dir string) {
			writeFile(t, dir, "mesh-state/heartbeat.lock", "")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRemote(t)
			dir := r.clone()
			tt.touch(t, dir)
			before := r.log()
			res, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Committed || res.Pushed || res.Attempts != 0 {
				t.Errorf("result = %+v, want nothing done", res)
			}
			if after := r.log(); !slices.Equal(before, after) {
				t.Errorf("remote moved: %v -> %v", before, after)
			}
		})
	}
}

// A directory of the node's that holds only a running heartbeat's lock
// file, in a clone without the template's .gitignore, made git commit
// refuse its pathspec ("pathspec 'mesh-state' did not match any file(s)
// known to git"), and nothing was committed.
func TestCommitAndPushPassesOverADirectoryHoldingOnlyALock(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	writeFile(t, dir, "mesh-state/heartbeat.lock", "")
	writeFile(t, dir, "MANIFEST.md", "# MANIFEST\n\nsequence: 2\n")
	res, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || !res.Pushed {
		t.Fatalf("result = %+v, want committed and pushed", res)
	}
	if got := r.show("MANIFEST.md"); got != "# MANIFEST\n\nsequence: 2\n" {
		t.Errorf("remote MANIFEST.md = %q", got)
	}
}

func TestCommitAndPushStagesDeletions(t *testing.T) {
	r := newRemote(t)
	seed := r.clone()
	pushChange(t, seed, "disputes/dispute-abc.md", "x\n", "add dispute")
	dir := r.clone()
	if err := os.RemoveAll(filepath.Join(dir, "disputes")); err != nil {
		t.Fatal(err)
	}
	res, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true})
	if err != nil || !res.Pushed {
		t.Fatalf("CommitAndPush = %+v, %v", res, err)
	}
	files := run(t, r.bare, "git", "ls-tree", "-r", "--name-only", "main")
	if strings.Contains(files, "disputes/") {
		t.Errorf("deleted dispute still on remote:\n%s", files)
	}
}

func TestCommitAndPushRebasesWhenAnotherRunPushedFirst(t *testing.T) {
	r := newRemote(t)
	ours, theirs := r.clone(), r.clone()
	pushChange(t, theirs, "validations/val-aaaaaaaaaaaa.md", "theirs\n", "heartbeat: 1 validation published")
	writeFile(t, ours, "traces/ours.md", "ours\n")
	s := &sleeps{}

	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Message: "heartbeat: 1 trace published", Push: true, Sleep: s.sleep})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed || res.Attempts != 2 {
		t.Errorf("result = %+v, want pushed on attempt 2", res)
	}
	if want := []time.Duration{firstBackoff}; !slices.Equal(s.got, want) {
		t.Errorf("slept %v, want %v", s.got, want)
	}
	log := r.log()
	if len(log) != 3 || !strings.HasSuffix(log[0], "1 trace published") || !strings.HasSuffix(log[1], "1 validation published") {
		t.Errorf("remote history = %q, want ours rebased on theirs, linear", log)
	}
	if r.show("validations/val-aaaaaaaaaaaa.md") != "theirs\n" || r.show("traces/ours.md") != "ours\n" {
		t.Error("remote lost one side's file")
	}
}

func TestCommitAndPushGivesUpAfterRetriesWhenTheRemoteKeepsMoving(t *testing.T) {
	r := newRemote(t)
	ours, theirs := r.clone(), r.clone()
	// A pre-push hook makes the other clone push just before each of our
	// pushes, so every attempt loses the race.
	hook := "#!/bin/sh\nunset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE\n" +
		"cd '" + theirs + "' && git pull --quiet --rebase origin main && " +
		"git commit --quiet --allow-empty -m race && git push --quiet origin main\n"
	writeFile(t, ours, ".git/hooks/pre-push", hook)
	if err := os.Chmod(filepath.Join(ours, ".git/hooks/pre-push"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, ours, "traces/ours.md", "ours\n")
	s := &sleeps{}

	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Retries: 3, Sleep: s.sleep})
	if !errors.Is(err, ErrPushRejected) {
		t.Fatalf("err = %v, want ErrPushRejected", err)
	}
	if res.Pushed || res.Attempts != 3 {
		t.Errorf("result = %+v, want 3 attempts, not pushed", res)
	}
	if want := []time.Duration{firstBackoff, 2 * firstBackoff}; !slices.Equal(s.got, want) {
		t.Errorf("slept %v, want doubling %v", s.got, want)
	}
}

func TestCommitAndPushAbortsARebaseConflictAndLeavesTheTreeClean(t *testing.T) {
	r := newRemote(t)
	ours, theirs := r.clone(), r.clone()
	pushChange(t, theirs, "MANIFEST.md", "# MANIFEST\n\nsequence: 2 theirs\n", "theirs")
	writeFile(t, ours, "MANIFEST.md", "# MANIFEST\n\nsequence: 2 ours\n")

	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Sleep: (&sleeps{}).sleep})
	if !errors.Is(err, ErrRebaseConflict) {
		t.Fatalf("err = %v, want ErrRebaseConflict", err)
	}
	// Said once: where, which file, why.
	if want := "rebase onto origin main: conflict in MANIFEST.md: another push changed the same lines"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if !res.Committed || res.Pushed {
		t.Errorf("result = %+v, want committed locally, not pushed", res)
	}
	if st := run(t, ours, "git", "status", "--porcelain"); st != "" {
		t.Errorf("working tree not clean after abort:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(ours, ".git", "rebase-merge")); !os.IsNotExist(err) {
		t.Error("a rebase is still in progress")
	}
	if got := r.show("MANIFEST.md"); !strings.Contains(got, "theirs") {
		t.Errorf("remote MANIFEST.md = %q, want theirs untouched", got)
	}
}

func TestCommitAndPushReportsAnUnreachableRemote(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	run(t, dir, "git", "remote", "set-url", "origin", filepath.Join(t.TempDir(), "missing.git"))
	writeFile(t, dir, "traces/x.md", "x\n")
	res, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true, Sleep: (&sleeps{}).sleep})
	if err == nil || errors.Is(err, ErrPushRejected) {
		t.Fatalf("err = %v, want a plain push error", err)
	}
	if res.Attempts != 1 {
		t.Errorf("attempts = %d, want no retry of a non-rejection", res.Attempts)
	}
}

func TestCommitAndPushWithoutPushOnlyCommits(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	writeFile(t, dir, "traces/x.md", "x\n")
	before := r.log()
	res, err := CommitAndPush(context.Background(), Options{Dir: dir})
	if err != nil || !res.Committed || res.Pushed {
		t.Fatalf("CommitAndPush = %+v, %v; want committed, not pushed", res, err)
	}
	if after := r.log(); !slices.Equal(before, after) {
		t.Errorf("remote moved without --push")
	}
}

func TestCommitAndPushKeepsTheScheduleAliveWhenNothingChangedForLong(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name          string
		after, age    time.Duration
		wantCommitted bool
	}{
		{"off by default", 0, 90 * day, false},
		{"recent commit", 30 * day, 29 * day, false},
		{"old commit", 30 * day, 31 * day, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRemote(t)
			dir := r.clone()
			last := strings.TrimSpace(run(t, dir, "git", "log", "-1", "--format=%ct"))
			secs, _ := strconv.ParseInt(last, 10, 64)
			now := func() time.Time { return time.Unix(secs, 0).Add(tt.age) }

			res, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true, KeepaliveAfter: tt.after, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if res.Committed != tt.wantCommitted || res.Keepalive != tt.wantCommitted || res.Pushed != tt.wantCommitted {
				t.Errorf("result = %+v, want committed=%v", res, tt.wantCommitted)
			}
			if tt.wantCommitted {
				want := fmt.Sprintf("%s: heartbeat: keepalive, no change for %d days", person, int(tt.age.Hours()/24))
				if got := r.log()[0]; got != want {
					t.Errorf("remote head = %q, want %q", got, want)
				}
			}
		})
	}
}

// The workflow checks out with actions/checkout's default depth of 1.
func TestCommitAndPushRebasesInAShallowCheckout(t *testing.T) {
	r := newRemote(t)
	seed := r.clone()
	pushChange(t, seed, "traces/two.md", "two\n", "second")
	ours := filepath.Join(t.TempDir(), "shallow")
	run(t, "", "git", "clone", "--quiet", "--depth", "1", "file://"+r.bare, ours)
	theirs := r.clone()
	pushChange(t, theirs, "validations/val-bbbbbbbbbbbb.md", "theirs\n", "theirs")
	pushChange(t, theirs, "validations/val-cccccccccccc.md", "theirs\n", "theirs again")
	writeFile(t, ours, "traces/ours.md", "ours\n")

	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed || res.Attempts != 2 {
		t.Errorf("result = %+v, want pushed on attempt 2", res)
	}
	if len(r.log()) != 5 || r.show("traces/ours.md") != "ours\n" {
		t.Errorf("remote history = %q", r.log())
	}
}

// A push that lost the race, or a commit made without --push, is pushed by
// the next run even when that run has nothing new to commit.
func TestCommitAndPushPushesACommitAnEarlierRunLeftUnpushed(t *testing.T) {
	r := newRemote(t)
	ours, theirs := r.clone(), r.clone()
	writeFile(t, ours, "traces/ours.md", "ours\n")
	pushChange(t, theirs, "README.md", "theirs\n", "theirs")
	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Retries: 1, Sleep: (&sleeps{}).sleep})
	if !errors.Is(err, ErrPushRejected) || !res.Committed {
		t.Fatalf("first run = %+v, %v; want committed, push rejected", res, err)
	}

	res, err = CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed || !res.Pushed || res.Unpushed != 1 {
		t.Errorf("second run = %+v, want the earlier commit pushed", res)
	}
	if r.show("traces/ours.md") != "ours\n" || r.show("README.md") != "theirs\n" {
		t.Errorf("remote lacks a side: %q", r.log())
	}

	res, err = CommitAndPush(context.Background(), Options{Dir: ours, Push: true})
	if err != nil || res.Attempts != 0 {
		t.Errorf("third run = %+v, %v; want no push: nothing is left", res, err)
	}
}

// A person's uncommitted edit is no reason to fail: it is put aside for
// the rebase, brought back, and named.
func TestCommitAndPushRebasesPastAPersonsUncommittedEdits(t *testing.T) {
	r := newRemote(t)
	ours, theirs := r.clone(), r.clone()
	pushChange(t, theirs, "validations/val-bbbbbbbbbbbb.md", "theirs\n", "theirs")
	writeFile(t, ours, "README.md", "my edit\n")
	writeFile(t, ours, "notes/todo.txt", "later\n")
	writeFile(t, ours, "traces/ours.md", "ours\n")

	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed || res.Attempts != 2 || len(res.Stashed) != 0 {
		t.Errorf("result = %+v, want pushed after one rebase", res)
	}
	if !slices.Equal(res.Others, []string{"README.md", "notes/"}) {
		t.Errorf("others = %q", res.Others)
	}
	if got := run(t, ours, "git", "status", "--porcelain"); got != " M README.md\n?? notes/\n" {
		t.Errorf("local edits not as they were:\n%s", got)
	}
	if r.show("traces/ours.md") != "ours\n" || strings.Contains(run(t, r.bare, "git", "ls-tree", "-r", "--name-only", "main"), "notes") {
		t.Errorf("remote = %q", r.log())
	}
	if got := run(t, ours, "git", "stash", "list"); got != "" {
		t.Errorf("stash left behind: %s", got)
	}
}

func TestCommitAndPushKeepsEditsThatConflictWithTheRemoteInTheStash(t *testing.T) {
	r := newRemote(t)
	ours, theirs := r.clone(), r.clone()
	pushChange(t, theirs, "README.md", "theirs\n", "theirs")
	writeFile(t, ours, "README.md", "mine\n")
	writeFile(t, ours, "traces/ours.md", "ours\n")

	res, err := CommitAndPush(context.Background(), Options{Dir: ours, Push: true, Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed || !slices.Equal(res.Stashed, []string{"README.md"}) {
		t.Errorf("result = %+v, want pushed, README.md kept in the stash", res)
	}
	if got := run(t, ours, "git", "status", "--porcelain"); got != "" {
		t.Errorf("tree not clean:\n%s", got)
	}
	if got := run(t, ours, "git", "stash", "show", "-p"); !strings.Contains(got, "+mine") {
		t.Errorf("the edit is not in the stash:\n%s", got)
	}
}

func TestCommitAndPushSaysWhenGitDoesNotKnowWhoCommits(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_COMMITTER_NAME", "")
	writeFile(t, dir, "traces/x.md", "x\n")
	_, err := CommitAndPush(context.Background(), Options{Dir: dir})
	if !errors.Is(err, ErrNoIdentity) {
		t.Errorf("err = %v, want ErrNoIdentity", err)
	}
}
