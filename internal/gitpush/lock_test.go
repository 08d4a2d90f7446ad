package gitpush

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/filelock"
)

// TestASecondCommitInTheSameCheckoutIsRefused: a run holds the checkout's
// commit lock from start to end, so a second one started meanwhile stops
// before it stages or moves anything, and runs once the first has ended.
func TestASecondCommitInTheSameCheckoutIsRefused(t *testing.T) {
	r := newRemote(t)
	dir := r.clone()
	writeFile(t, dir, "traces/one.md", "# One\n")
	p := strings.TrimSpace(run(t, dir, "git", "rev-parse", "--path-format=absolute", "--git-path", commitLock))
	unlock, err := filelock.TryLock(p) // the first run, as another process would hold it
	if err != nil {
		t.Fatal(err)
	}
	before := run(t, dir, "git", "rev-parse", "HEAD")
	if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); !errors.Is(err, ErrCommitRunning) {
		t.Errorf("CommitAndPush while another holds the checkout: %v, want ErrCommitRunning", err)
	}
	if after := run(t, dir, "git", "rev-parse", "HEAD"); after != before {
		t.Errorf("HEAD moved while another run held the checkout")
	}
	if staged := run(t, dir, "git", "diff", "--cached", "--name-only"); staged != "" {
		t.Errorf("staged while another run held the checkout: %q", staged)
	}
	unlock()
	res, err := CommitAndPush(context.Background(), Options{Dir: dir})
	if err != nil || !res.Committed {
		t.Errorf("CommitAndPush once the first run ended: %+v, %v", res, err)
	}
}

// TestUntrackingCommitRefusesDuringARebase: a person's rebase stopped on
// a conflict is not concluded, nor its state disturbed, by the commit
// that untracks the copies.
func TestUntrackingCommitRefusesDuringARebase(t *testing.T) {
	r := newRemote(t)
	dir := olderNode(t, r)
	run(t, dir, "git", "checkout", "--quiet", "-b", "feature")
	writeFile(t, dir, "README.md", "a node, as the branch says\n")
	run(t, dir, "git", "commit", "--quiet", "-am", "feature: README")
	run(t, dir, "git", "checkout", "--quiet", "main")
	writeFile(t, dir, "README.md", "a node, as main says\n")
	run(t, dir, "git", "commit", "--quiet", "-am", "main: README")
	run(t, dir, "git", "checkout", "--quiet", "feature")
	if err := exec.Command("git", "-C", dir, "rebase", "--quiet", "main").Run(); err == nil {
		t.Fatal("the rebase did not stop on its conflict")
	}
	before := run(t, dir, "git", "rev-parse", "HEAD")
	writeFile(t, dir, "traces/one.md", "# One\n")
	if _, err := CommitAndPush(context.Background(), Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "during a rebase") {
		t.Errorf("CommitAndPush during a rebase: %v, want a refusal naming it", err)
	}
	if after := run(t, dir, "git", "rev-parse", "HEAD"); after != before {
		t.Errorf("HEAD moved during the rebase")
	}
	if !rebasing(context.Background(), Options{Dir: dir}, nil) {
		t.Errorf("the person's rebase is no longer in progress")
	}
}
