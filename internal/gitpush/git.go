package gitpush

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// gitWaitDelay is how long a canceled git may take to clean up before it
// is killed.
const gitWaitDelay = 10 * time.Second

// gitError is a git command that exited non-zero.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

func (e *gitError) Unwrap() error { return e.err }

// git runs git in dir and returns its stdout.
func git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	// Canceled, git gets SIGINT, as from Ctrl-C on a terminal: it removes
	// its lock files and leaves the repository as it was. SIGKILL, the
	// default, could leave .git/index.lock behind and block the next run.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = gitWaitDelay
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return stdout.String(), fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
		}
		return stdout.String(), &gitError{args: args, stderr: stderr.String(), err: err}
	}
	return stdout.String(), nil
}

// exitCode is the exit status of a failed git command, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if ge, ok := err.(*gitError); ok {
		if e, ok := ge.err.(*exec.ExitError); ok {
			ee = e
		}
	}
	if ee == nil {
		return -1
	}
	return ee.ExitCode()
}
