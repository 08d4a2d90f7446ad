package gitpush

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitAndPushNeverCommitsTheCopies: the copies of peers' traces
// are a cache beside the checkout (docs/decisions.md, "What the node
// commits"), so a heartbeat's commit leaves them out even in a
// repository without the template's .gitignore, and the files stay.
func TestCommitAndPushNeverCommitsTheCopies(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	writeFile(t, dir, "traces/one.md", "# One\n")
	writeFile(t, dir, "mesh-state/copies/ada_0000abcd.json", `{"copies": {}}`+"\n")
	writeFile(t, dir, "mesh-state/copies.json", `{"copies": {}}`+"\n")

	res, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true, Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || !res.Pushed {
		t.Fatalf("result = %+v, want committed and pushed", res)
	}
	if files := run(t, r.bare, "git", "ls-tree", "-r", "--name-only", "main"); strings.Contains(files, "copies") || !strings.Contains(files, "traces/one.md") {
		t.Errorf("the remote holds:\n%s\nwant traces/one.md and no copies", files)
	}
	wantCopiesOnDiskUntracked(t, dir)
}

// TestCommitAndPushUntracksTheCopiesAnOlderNodeCommitted: a checkout
// whose copies an older node committed gets them out of git's index with
// the next commit, its other changes in the same commit, while the files
// stay on disk and a person's own staged change stays staged and out of
// the commit.
func TestCommitAndPushUntracksTheCopiesAnOlderNodeCommitted(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	writeFile(t, dir, "mesh-state/copies/ada_0000abcd.json", `{"copies": {}}`+"\n")
	writeFile(t, dir, "mesh-state/copies.json", `{"copies": {}}`+"\n")
	run(t, dir, "git", "add", "mesh-state")
	run(t, dir, "git", "commit", "--quiet", "-m", "an older node's heartbeat")
	writeFile(t, dir, ".gitignore", "/mesh-state/copies/\n/mesh-state/copies.json\n")
	run(t, dir, "git", "add", ".gitignore")
	writeFile(t, dir, "mesh-state/copies/ada_0000abcd.json", `{"copies": {"x": null}}`+"\n")
	writeFile(t, dir, "traces/one.md", "# One\n")

	res, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true, Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || !res.Pushed {
		t.Fatalf("result = %+v, want committed and pushed", res)
	}
	changed := run(t, r.bare, "git", "diff", "--name-status", "--no-renames", "main~1", "main")
	for _, want := range []string{"D\tmesh-state/copies.json", "D\tmesh-state/copies/ada_0000abcd.json", "A\ttraces/one.md"} {
		if !strings.Contains(changed, want) {
			t.Errorf("the commit changed:\n%s\nwant %q", changed, want)
		}
	}
	if strings.Contains(changed, ".gitignore") {
		t.Errorf("a person's staged .gitignore was committed:\n%s", changed)
	}
	if staged := run(t, dir, "git", "diff", "--cached", "--name-only"); strings.TrimSpace(staged) != ".gitignore" {
		t.Errorf("staged after the commit: %q, want the person's .gitignore alone", staged)
	}
	wantCopiesOnDiskUntracked(t, dir)
	if data, err := os.ReadFile(filepath.Join(dir, "mesh-state/copies/ada_0000abcd.json")); err != nil || !strings.Contains(string(data), `"x"`) {
		t.Errorf("the copies' file after the commit: %q, %v; want the bytes on disk", data, err)
	}
	again, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true, Sleep: (&sleeps{}).sleep})
	if err != nil || again.Committed {
		t.Errorf("the commit after: %+v, %v; want nothing to commit", again, err)
	}
}

// wantCopiesOnDiskUntracked fails unless dir's copies are on disk and
// not in git's index.
func wantCopiesOnDiskUntracked(t *testing.T, dir string) {
	t.Helper()
	if tracked := run(t, dir, "git", "ls-files", "--", "mesh-state/copies", "mesh-state/copies.json"); tracked != "" {
		t.Errorf("git tracks the copies:\n%s", tracked)
	}
	for _, f := range []string{"mesh-state/copies/ada_0000abcd.json", "mesh-state/copies.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the commit took %s off the disk: %v", f, err)
		}
	}
}

// FuzzHoldsData: whatever `git ls-files -t -z` prints, holdsData does not
// fail, never counts the untracked copies alone, and counts any tracked
// file.
func FuzzHoldsData(f *testing.F) {
	for _, s := range []string{"", "? mesh-state/copies/a.json\x00", "H mesh-state/ledger/ab.json\x00? mesh-state/copies.json\x00", "? traces/x.md\x00", "H\x00?", "? mesh-state/copiesX\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, listed string) {
		var copies strings.Builder
		for _, e := range strings.Split(listed, "\x00") {
			if _, name, ok := strings.Cut(e, " "); ok && !strings.Contains(name, "\x00") {
				copies.WriteString("? mesh-state/copies/" + strings.TrimLeft(name, "/") + "\x00")
			}
		}
		if holdsData(copies.String()) {
			t.Errorf("untracked copies alone counted as data: %q", copies.String())
		}
		if !holdsData(listed + "\x00H traces/x.md\x00") {
			t.Errorf("a tracked file after %q not counted", listed)
		}
	})
}

// olderNode returns a fresh clone of r whose main an older node left
// tracking the copies (mesh-state/copies/ada_0000abcd.json and
// mesh-state/copies.json) before it got the template's .gitignore.
func olderNode(t *testing.T, r *remote) string {
	t.Helper()
	seed := r.clone()
	writeFile(t, seed, "mesh-state/copies/ada_0000abcd.json", `{"copies": {}}`+"\n")
	writeFile(t, seed, "mesh-state/copies.json", `{"copies": {}}`+"\n")
	run(t, seed, "git", "add", "mesh-state")
	run(t, seed, "git", "commit", "--quiet", "-m", "an older node's heartbeat")
	pushChange(t, seed, ".gitignore", "/mesh-state/*.lock\n/mesh-state/copies\n/mesh-state/copies.json\n", "the new .gitignore")
	return r.clone()
}

// TestUntrackingCommitRefusesDuringAMerge: the commit that untracks the
// copies is made from a copy of git's index; during a merge (or a
// cherry-pick, a revert, a rebase) it would conclude the person's merge
// with a tree that drops the merged branch. It refuses, as `git commit --
// paths` does, and leaves the merge as it was.
func TestUntrackingCommitRefusesDuringAMerge(t *testing.T) {
	r := newRemote(t)
	dir := olderNode(t, r)
	run(t, dir, "git", "checkout", "--quiet", "-b", "feature")
	writeFile(t, dir, "README.md", "a node, improved on a branch\n")
	run(t, dir, "git", "commit", "--quiet", "-am", "feature: improve README")
	run(t, dir, "git", "checkout", "--quiet", "main")
	run(t, dir, "git", "merge", "--quiet", "--no-ff", "--no-commit", "feature")
	before := run(t, dir, "git", "rev-parse", "HEAD")
	writeFile(t, dir, "traces/one.md", "# One\n")

	_, err := CommitAndPush(context.Background(), Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "during a merge") {
		t.Errorf("CommitAndPush during a merge: %v, want a refusal naming the merge", err)
	}
	if after := run(t, dir, "git", "rev-parse", "HEAD"); after != before {
		t.Errorf("HEAD moved during a merge: %s -> %s (parents %s)", before, after, run(t, dir, "git", "log", "-1", "--format=%P"))
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); err != nil {
		t.Errorf("the person's merge is gone: %v", err)
	}
}

// TestUntrackingCommitRefusesDuringASequencerOperation: a cherry-pick or
// revert stopped with its changes staged is the person's to conclude.
func TestUntrackingCommitRefusesDuringASequencerOperation(t *testing.T) {
	for _, op := range []string{"cherry-pick", "revert"} {
		t.Run(op, func(t *testing.T) {
			r := newRemote(t)
			dir := olderNode(t, r)
			run(t, dir, "git", "checkout", "--quiet", "-b", "feature")
			writeFile(t, dir, "README.md", "a node, improved on a branch\n")
			run(t, dir, "git", "commit", "--quiet", "-am", "feature: improve README")
			pick := strings.TrimSpace(run(t, dir, "git", "rev-parse", "HEAD"))
			if op == "cherry-pick" {
				run(t, dir, "git", "checkout", "--quiet", "main")
			}
			run(t, dir, "git", op, "--no-commit", pick)
			// --no-commit of a single commit leaves no CHERRY_PICK_HEAD
			// or REVERT_HEAD; one stopped on a conflict leaves it.
			run(t, dir, "git", "update-ref", map[string]string{"cherry-pick": "CHERRY_PICK_HEAD", "revert": "REVERT_HEAD"}[op], pick)
			before := run(t, dir, "git", "rev-parse", "HEAD")
			writeFile(t, dir, "traces/one.md", "# One\n")
			if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "during a "+op) {
				t.Errorf("CommitAndPush during a %s: %v, want a refusal naming it", op, err)
			}
			if after := run(t, dir, "git", "rev-parse", "HEAD"); after != before {
				t.Errorf("HEAD moved during a %s", op)
			}
		})
	}
}

// TestUntrackingCommitLeavesStagedLockFilesOut: a lock file a person
// staged by hand under mesh-state/ stays out of the commit that untracks
// the copies, as `git commit -- paths` left it out.
func TestUntrackingCommitLeavesStagedLockFilesOut(t *testing.T) {
	r := newRemote(t)
	dir := olderNode(t, r)
	writeFile(t, dir, "mesh-state/heartbeat.lock", "")
	run(t, dir, "git", "add", "--force", "mesh-state/heartbeat.lock")
	writeFile(t, dir, "traces/one.md", "# One\n")
	if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if files := run(t, dir, "git", "ls-tree", "-r", "--name-only", "HEAD"); strings.Contains(files, ".lock") || !strings.Contains(files, "traces/one.md") {
		t.Errorf("the commit holds:\n%s\nwant traces/one.md and no lock file", files)
	}
	if staged := run(t, dir, "git", "diff", "--cached", "--name-only"); strings.TrimSpace(staged) != "mesh-state/heartbeat.lock" {
		t.Errorf("staged after the commit: %q, want the person's lock file alone", staged)
	}
}

// TestRebaseOfTheUntrackingCommitKeepsTheCopiesOnDisk: a push rejected
// during the run that untracks the copies rebases onto a remote that
// still tracks them; git checks them out over the ignored files and
// replaying the commit deletes them. They are moved aside meanwhile and
// come back, after a rebase that succeeds and after one aborted on a
// conflict alike.
func TestRebaseOfTheUntrackingCommitKeepsTheCopiesOnDisk(t *testing.T) {
	for _, tc := range []struct {
		name, other string // what another push changed first
		want        error
	}{
		{"rebased", "traces/two.md", nil},
		{"conflict", "traces/one.md", ErrRebaseConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRemote(t)
			dir := olderNode(t, r)
			pushChange(t, r.clone(), tc.other, "# Theirs\n", "another push first")
			writeFile(t, dir, "traces/one.md", "# One\n")
			writeFile(t, dir, "mesh-state/copies/ada_0000abcd.json", `{"copies": {"a": 1}}`+"\n")
			writeFile(t, dir, "mesh-state/copies/bob_0000beef.json", `{"copies": {"b": 2}}`+"\n")
			_, err := CommitAndPush(context.Background(), Options{Dir: dir, Push: true, Sleep: (&sleeps{}).sleep})
			if !errors.Is(err, tc.want) {
				t.Fatalf("CommitAndPush: %v, want %v", err, tc.want)
			}
			for f, want := range map[string]string{
				"mesh-state/copies/ada_0000abcd.json": `{"copies": {"a": 1}}` + "\n",
				"mesh-state/copies/bob_0000beef.json": `{"copies": {"b": 2}}` + "\n",
				"mesh-state/copies.json":              `{"copies": {}}` + "\n",
			} {
				if got, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(got) != want {
					t.Errorf("%s after the rebase: %q, %v; want %q", f, got, err, want)
				}
			}
			if aside := filepath.Join(dir, ".git", copiesAside); exists(aside) {
				t.Errorf("%s left behind", aside)
			}
		})
	}
}

// TestCopiesLeftAsideByACrashComeBack: copies a run that died mid-rebase
// left aside come back at the next run when nothing stands in their
// place; when a heartbeat wrote a store since, that newer store stays and
// the older one aside is dropped.
func TestCopiesLeftAsideByACrashComeBack(t *testing.T) {
	t.Run("nothing in place", func(t *testing.T) {
		r := newRemote(t)
		dir := r.clone()
		writeFile(t, dir, ".git/"+copiesAside+"/copies/ada_0000abcd.json", `{"copies": {"a": 1}}`+"\n")
		writeFile(t, dir, ".git/"+copiesAside+"/copies.json", `{"copies": {}}`+"\n")
		writeFile(t, dir, "traces/one.md", "# One\n")
		if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, "mesh-state/copies/ada_0000abcd.json")); err != nil || !strings.Contains(string(got), `"a"`) {
			t.Errorf("the copies put aside: %q, %v; want them back", got, err)
		}
		if !exists(filepath.Join(dir, "mesh-state/copies.json")) || exists(filepath.Join(dir, ".git", copiesAside)) {
			t.Errorf("copies.json not brought back, or the aside directory left behind")
		}
	})
	t.Run("a newer store in place", func(t *testing.T) {
		r := newRemote(t)
		dir := r.clone()
		writeFile(t, dir, ".git/"+copiesAside+"/copies/ada_0000abcd.json", `{"old": 1}`+"\n")
		writeFile(t, dir, "mesh-state/copies/ada_0000abcd.json", `{"new": 1}`+"\n")
		writeFile(t, dir, "mesh-state/copies/cy_00000001.json", `{"new": 1}`+"\n")
		writeFile(t, dir, "traces/one.md", "# One\n")
		if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "mesh-state/copies/ada_0000abcd.json")); !strings.Contains(string(got), "new") {
			t.Errorf("ada_0000abcd.json is %q: the older copy put aside replaced the newer store's", got)
		}
		if !exists(filepath.Join(dir, "mesh-state/copies/cy_00000001.json")) {
			t.Errorf("the newer store's cy_00000001.json was deleted")
		}
		if exists(filepath.Join(dir, ".git", copiesAside)) {
			t.Errorf("the older copies are still aside")
		}
	})
}

// TestFailedUntrackLeavesNothingStaged: git add never stages the copies,
// so a failure (here `git rm` failing) between staging and untracking
// leaves none of them in the person's index, even in a repository
// without the template's .gitignore.
func TestFailedUntrackLeavesNothingStaged(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	writeFile(t, dir, "traces/one.md", "# One\n")
	writeFile(t, dir, "mesh-state/ledger/ab.json", "{}\n")
	writeFile(t, dir, "mesh-state/copies/ada_0000abcd.json", `{"copies": {}}`+"\n")
	writeFile(t, dir, "mesh-state/copies.json", `{"copies": {}}`+"\n")
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nif [ \"$1\" = rm ]; then echo 'fatal: injected' >&2; exit 128; fi\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); err == nil {
		t.Fatal("CommitAndPush with a failing git rm: no error")
	}
	if staged := run(t, dir, realGit, "diff", "--cached", "--name-only"); strings.Contains(staged, "copies") {
		t.Errorf("staged after the failure:\n%s", staged)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
