package gittree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"golang.org/x/sync/errgroup"
)

// timeout bounds each git command: the work tree's clean check reads
// git's index and stats the files under the paths, and reads their bytes
// only where the stat data differs from the index's (a copy, a racily
// clean entry): 1.1 s for 186 MB of ledger on a loaded 2-core machine.
const timeout = 30 * time.Second

// maxOutput bounds what is kept of git's output: a clean check prints
// nothing, and the entries of a few paths are a few lines.
const maxOutput = 1 << 20

// ErrDirty says the work tree differs from HEAD at one of the paths: a
// file changed, added, removed, or ignored by git but there.
var ErrDirty = errors.New("the work tree differs from HEAD")

// Of returns what HEAD records for paths (relative to dir, which may be a
// subdirectory of the checkout): one line per path present, its mode,
// type, object ID and name, as git ls-tree prints them. It fails with
// ErrDirty when the work tree is not clean at those paths, counting
// untracked and ignored files (a file git ignores is still published),
// and with another error when dir is not a git checkout with a commit or
// git cannot run.
//
// It asks git three narrow questions at once, each a process of its own
// so that they share the machine's cores (docs/decisions.md, "A quiet
// heartbeat"): whether a tracked file differs from HEAD (git status
// without its scan of untracked files: it stats each file of the index
// under the paths, and keeps the stat data it refreshes), whether a file
// git does not track is there (git ls-files --others with no exclude
// rule, so ignored files count, without status's matching of each file
// against the ignore rules), and HEAD's entries.
func Of(ctx context.Context, dir string, paths []string) ([]byte, error) {
	var changed, others, tree output
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		changed, err = run(gctx, dir, nil, append([]string{"status", "--porcelain=v1", "-z", "--untracked-files=no", "--"}, paths...))
		return err
	})
	g.Go(func() (err error) {
		others, err = run(gctx, dir, nil, append([]string{"ls-files", "--others", "-z", "--"}, paths...))
		return err
	})
	g.Go(func() (err error) {
		tree, err = run(gctx, dir, nil, append([]string{"ls-tree", "HEAD", "--"}, paths...))
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Any output says the tree is not clean, however much of it was kept.
	if len(changed.out) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrDirty, firstEntry(changed.out))
	}
	if len(others.out) > 0 {
		return nil, fmt.Errorf("%w: %s not tracked", ErrDirty, firstEntry(others.out))
	}
	return tree.whole()
}

// firstEntry is the first path git named, for the error.
func firstEntry(out []byte) string {
	e, _, _ := bytes.Cut(out, []byte{0})
	return string(e)
}

// output is what a git command printed: at most maxOutput bytes of it,
// and whether there was more.
type output struct {
	out  []byte
	over bool
	args []string
}

// whole is the output when git printed no more than was kept.
func (o output) whole() ([]byte, error) {
	if o.over {
		return nil, fmt.Errorf("git %s: more than %d bytes of output", o.args[0], maxOutput)
	}
	return o.out, nil
}

// run runs git in dir with args, and env added to its environment, and
// returns its standard output.
func run(ctx context.Context, dir string, env, args []string) (output, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// git status may refresh the index's stat data (when no other git
	// command holds its lock): a check after a copy or a checkout whose
	// stat data went stale reads the files' bytes once, not every time.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, stderr capped
	out.max, stderr.max = maxOutput, 4<<10
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return output{}, fmt.Errorf("git %s: %w: %s", args[0], err, bytes.TrimSpace(stderr.buf.Bytes()))
	}
	return output{out: out.buf.Bytes(), over: out.over, args: args}, nil
}

// runWhole is run for a command whose whole output is needed.
func runWhole(ctx context.Context, dir string, env, args []string) ([]byte, error) {
	o, err := run(ctx, dir, env, args)
	if err != nil {
		return nil, err
	}
	return o.whole()
}

// capped keeps at most max bytes written to it and notes the rest.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}
