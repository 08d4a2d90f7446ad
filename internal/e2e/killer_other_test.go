//go:build !(linux && amd64)

package e2e

import (
	"errors"
	"os/exec"
)

// canKill reports whether this platform can kill a process between writes:
// the tracer reads syscall registers, which only linux/amd64 is written for.
const canKill = false

func runKilledAfter(*exec.Cmd, int) (int, bool, error) {
	return 0, false, errors.New("killing between writes needs ptrace on linux/amd64")
}
