//go:build !unix

package score

import "os/exec"

// setProcessGroup leaves the default: cancellation kills the process only.
func setProcessGroup(cmd *exec.Cmd) {}
