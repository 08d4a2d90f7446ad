package gitpush

import (
	"context"
	"os"
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
