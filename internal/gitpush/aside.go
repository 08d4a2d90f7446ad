package gitpush

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// copiesAside is the directory, in git's directory (.git/meshnode-copies
// in a plain clone), where the copies (notCommitted) wait while a rebase
// runs: a remote that still tracks them would have git check them out
// over the ignored files, and replaying the commit that untracks them
// would delete them. A run that dies meanwhile leaves them there, and the
// next run puts them back first (putCopiesBack).
const copiesAside = "meshnode-copies"

// setCopiesAside moves the copies into copiesAside, by rename.
func setCopiesAside(ctx context.Context, o Options, env []string) error {
	if err := putCopiesBack(ctx, o, env); err != nil {
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
			return errors.Join(fmt.Errorf("put the copies aside: %w", err), putCopiesBack(ctx, o, env))
		}
	}
	return nil
}

// putCopiesBack moves the copies that setCopiesAside put aside back to
// their place, replacing whatever git wrote there meanwhile (a version of
// them in its history). It does nothing when none are aside.
func putCopiesBack(ctx context.Context, o Options, env []string) error {
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
