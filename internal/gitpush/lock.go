package gitpush

import (
	"context"
	"errors"
	"fmt"

	"github.com/meshnode/meshnode/internal/filelock"
)

// commitLock is the file in git's directory (.git/meshnode-commit.lock in
// a plain clone) whose lock a run holds from start to end: two runs at
// once in one checkout would commit and rebase over each other, and one's
// putting back of the copies could let the other's rebase delete them.
const commitLock = "meshnode-commit.lock"

// lockCommit takes the checkout's commit lock, or fails with
// ErrCommitRunning when another run holds it. The kernel releases it when
// the holder dies, so a crash never wedges the checkout.
func lockCommit(ctx context.Context, o Options, env []string) (unlock func(), err error) {
	p, err := gitPath(ctx, o, env, commitLock)
	if err != nil {
		return nil, fmt.Errorf("find the commit lock: %w", err)
	}
	unlock, err = filelock.TryLock(p)
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("%w (%s is held): let it end, then run again", ErrCommitRunning, p)
	}
	if err != nil {
		return nil, fmt.Errorf("take the commit lock: %w", err)
	}
	return unlock, nil
}
