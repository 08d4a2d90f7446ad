package gitpush

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// gitWrapper puts a git first on PATH that runs script (bash, with $REAL
// the real git) before the real git, and returns the real git's path.
func gitWrapper(t *testing.T, script string) string {
	t.Helper()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	w := "#!/bin/bash\nREAL=" + realGit + "\n" + script + "\nexec $REAL \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(w), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return realGit
}

// TestUntrackingCommitKeepsACommitMadeMeanwhile: HEAD is read once, so a
// person's commit made while the untracking commit is being built makes
// it fail (HEAD moved) rather than be undone by a tree built on the
// older HEAD.
func TestUntrackingCommitKeepsACommitMadeMeanwhile(t *testing.T) {
	r := newRemote(t)
	dir := olderNode(t, r)
	writeFile(t, dir, "traces/one.md", "# One\n")
	marker := filepath.Join(t.TempDir(), "done")
	gitWrapper(t, `if [ -n "$GIT_INDEX_FILE" ] && [ "$1" = reset ] && [[ "${@: -1}" == *.lock ]] && [ ! -e `+marker+` ]; then
  touch `+marker+`
  ( unset GIT_INDEX_FILE; echo "person's edit" > README.md; $REAL commit -q -m "person: edit README" README.md ) >&2
fi`)
	_, err := CommitAndPush(context.Background(), Options{Dir: dir})
	if _, serr := os.Stat(marker); serr != nil {
		t.Fatal("the person's commit was never made: the test no longer reaches the window")
	}
	if err == nil {
		t.Errorf("CommitAndPush succeeded though HEAD moved while it built its commit")
	}
	if got := run(t, dir, "git", "show", "HEAD:README.md"); !strings.Contains(got, "person's edit") {
		t.Errorf("HEAD's README.md is %q: the person's commit was undone", got)
	}
}

// TestUntrackingCommitIsSignedWhenConfigured: commit-tree signs nothing by
// itself, so the untracking commit honours commit.gpgsign as git commit
// does.
func TestUntrackingCommitIsSignedWhenConfigured(t *testing.T) {
	for _, untracking := range []bool{false, true} {
		r := newRemote(t)
		dir := r.clone()
		if untracking {
			dir = olderNode(t, r)
		}
		gpg := filepath.Join(t.TempDir(), "fakegpg")
		script := "#!/bin/sh\ncat >/dev/null\necho '[GNUPG:] SIG_CREATED D 1 8 00 1 X' >&2\nprintf -- '-----BEGIN PGP SIGNATURE-----\\nfake\\n-----END PGP SIGNATURE-----\\n'\n"
		if err := os.WriteFile(gpg, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		run(t, dir, "git", "config", "commit.gpgsign", "true")
		run(t, dir, "git", "config", "gpg.program", gpg)
		run(t, dir, "git", "config", "user.signingkey", "X")
		writeFile(t, dir, "traces/one.md", "# One\n")
		if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		if raw := run(t, dir, "git", "cat-file", "-p", "HEAD"); !strings.Contains(raw, "gpgsig") {
			t.Errorf("untracking=%v: the commit is not signed though commit.gpgsign is true", untracking)
		}
	}
}

// TestFailedUntrackOfTrackedIgnoredCopiesLeavesNothingStaged: copies an
// older node committed are tracked, so ignore rules do not keep git add
// from staging their changes; they are untracked before anything is
// staged, so a failure leaves no version of them in the person's index.
func TestFailedUntrackOfTrackedIgnoredCopiesLeavesNothingStaged(t *testing.T) {
	r := newRemote(t)
	dir := olderNode(t, r)
	writeFile(t, dir, "traces/one.md", "# One\n")
	writeFile(t, dir, "mesh-state/copies/ada_0000abcd.json", `{"copies": {"peer's text": 1}}`+"\n")
	realGit := gitWrapper(t, `if [ "$1" = rm ]; then echo 'fatal: injected' >&2; exit 128; fi`)
	if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); err == nil {
		t.Fatal("CommitAndPush succeeded though git rm failed")
	}
	if staged := run(t, dir, realGit, "diff", "--cached", "--name-status"); strings.Contains(staged, "copies") {
		t.Errorf("staged after the failure:\n%s", staged)
	}
}

// TestRebaseFromAnotherFilesystemOnceTheCopiesAreUntracked: once the
// remote no longer tracks the copies, a rejected push rebases without
// moving them into git's directory, which a rename cannot reach when it
// is on another filesystem (a linked worktree elsewhere).
func TestRebaseFromAnotherFilesystemOnceTheCopiesAreUntracked(t *testing.T) {
	r := newRemote(t)
	main := olderNode(t, r)
	writeFile(t, main, "traces/zero.md", "# Zero\n")
	if _, err := CommitAndPush(context.Background(), Options{Dir: main, Push: true}); err != nil {
		t.Fatal(err)
	}
	shm, err := os.MkdirTemp("/dev/shm", "meshnode-gitpush-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	if sameDevice(t, shm, main) {
		t.Skip("/dev/shm is on the same filesystem as the test's temporary directory")
	}
	wt := filepath.Join(shm, "wt")
	run(t, main, "git", "worktree", "add", "--quiet", "-b", "wtmain", wt, "origin/main")
	run(t, wt, "git", "branch", "--quiet", "--set-upstream-to=origin/main")
	pushChange(t, r.clone(), "traces/two.md", "# Two\n", "another push first")
	writeFile(t, wt, "mesh-state/copies/bob_0000beef.json", `{"copies": {"b": 2}}`+"\n")
	writeFile(t, wt, "traces/one.md", "# One\n")
	if _, err := CommitAndPush(context.Background(), Options{Dir: wt, Push: true, Sleep: (&sleeps{}).sleep}); err != nil {
		t.Fatalf("a rejected push from a worktree on another filesystem: %v", err)
	}
	if !exists(filepath.Join(wt, "mesh-state/copies/bob_0000beef.json")) {
		t.Errorf("the copies are gone after the rebase")
	}
}

func sameDevice(t *testing.T, a, b string) bool {
	t.Helper()
	var sa, sb syscall.Stat_t
	if err := syscall.Stat(a, &sa); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Stat(b, &sb); err != nil {
		t.Fatal(err)
	}
	return sa.Dev == sb.Dev
}
