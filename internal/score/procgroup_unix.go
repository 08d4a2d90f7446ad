//go:build unix

package score

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in a process group of its own and
// makes cancellation kill the whole group, so a scorer that forks (a shell
// script calling a model client) leaves nothing running after a timeout.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
