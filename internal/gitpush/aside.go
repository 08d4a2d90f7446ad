package gitpush

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// copiesAside is the directory, in git's directory (.git/meshnode-copies
// in a plain clone), where the copies (notCommitted) wait while a rebase
// runs: a remote that still tracks them would have git check them out
// over the ignored files, and replaying the commit that untracks them
// would delete them. A run that dies meanwhile leaves them there, and the
// next run puts them back first (putCopiesBack).
const copiesAside = "meshnode-copies"

// upstreamTracksCopies reports whether the remote branch a rebase replays
// onto still tracks the copies (an older node committed them and no
// commit untracking them has landed): only then would the rebase check
// them out over the ignored files and delete them. It fetches the branch
// to know; when that fails it answers yes, the safe side.
func upstreamTracksCopies(ctx context.Context, o Options, env []string) bool {
	if _, err := git(ctx, o.Dir, env, "fetch", "--quiet", o.Remote, o.Branch); err != nil {
		return true
	}
	out, err := git(ctx, o.Dir, env, append([]string{"ls-tree", "--name-only", "FETCH_HEAD", "--"}, notCommitted...)...)
	return err != nil || strings.TrimSpace(out) != ""
}

// setCopiesAside moves the copies into copiesAside, by rename.
func setCopiesAside(ctx context.Context, o Options, env []string) error {
	if err := putCopiesBack(ctx, o, env, true); err != nil {
		return err
	}
	aside, err := gitPath(ctx, o, env, copiesAside)
	if err != nil {
		return fmt.Errorf("find where to put the copies aside: %w", err)
	}
	if err := os.MkdirAll(aside, 0o755); err != nil {
		return fmt.Errorf("put the copies aside: %w", err)
	}
	for _, p := range notCommitted {
		err := os.Rename(filepath.Join(o.Dir, p), filepath.Join(aside, path.Base(p)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errors.Join(fmt.Errorf("put the copies aside: %w", err), putCopiesBack(ctx, o, env, true))
		}
	}
	return nil
}

// putCopiesBack moves the copies that setCopiesAside put aside back to
// their place. With replace, in the run that put them aside, they replace
// whatever git wrote there meanwhile (a version of them in its history);
// without, at the start of a later run after one that died, the copies
// found in place win: a heartbeat since wrote them, newer than those
// aside, which are dropped. It does nothing when none are aside.
func putCopiesBack(ctx context.Context, o Options, env []string, replace bool) error {
	aside, err := gitPath(ctx, o, env, copiesAside)
	if err != nil {
		return fmt.Errorf("find the copies put aside: %w", err)
	}
	if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for _, p := range notCommitted {
		from, to := filepath.Join(aside, path.Base(p)), filepath.Join(o.Dir, p)
		if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if _, err := os.Lstat(to); err == nil && !replace {
			if err := os.RemoveAll(from); err != nil {
				return fmt.Errorf("drop the older copies put aside in %s: %w", aside, err)
			}
			continue
		}
		if err := os.RemoveAll(to); err != nil {
			return fmt.Errorf("bring back the copies from %s: %w", aside, err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("bring back the copies from %s: %w", aside, err)
		}
		if err := os.Rename(from, to); err != nil {
			return fmt.Errorf("bring back the copies from %s: %w", aside, err)
		}
	}
	if err := os.Remove(aside); err != nil {
		return fmt.Errorf("bring back the copies: %w", err)
	}
	return nil
}
