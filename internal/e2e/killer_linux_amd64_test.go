//go:build linux && amd64

package e2e

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
)

// Syscalls that finish an atomicfile write on linux/amd64: the rename of
// its temporary file over the target. os.Rename uses renameat; the others
// are listed so that a change of runtime cannot hide a write.
const (
	sysRename    = 82
	sysRenameat  = 264
	sysRenameat2 = 316
)

// ptraceExitKill (PTRACE_O_EXITKILL) kills the tracee if the tracer dies,
// so a failed test never leaves a stopped heartbeat behind.
const ptraceExitKill = 0x100000

// canKill reports whether this platform can kill a process between writes.
const canKill = true

// runKilledAfter runs cmd under ptrace and kills it with SIGKILL as it
// enters its (writes+1)th rename: the first writes renames complete, the
// next write's temporary file is on disk but never renamed, as when the
// machine dies at that instant. A negative writes never kills. It returns
// how many renames the process entered and whether it was killed.
func runKilledAfter(cmd *exec.Cmd, writes int) (renames int, killed bool, err error) {
	type result struct {
		renames int
		killed  bool
		err     error
	}
	done := make(chan result, 1)
	go func() {
		// Every ptrace request must come from the thread that started
		// the tracee.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r, k, err := trace(cmd, writes)
		done <- result{r, k, err}
	}()
	res := <-done
	return res.renames, res.killed, res.err
}

func trace(cmd *exec.Cmd, writes int) (int, bool, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	if err := cmd.Start(); err != nil {
		return 0, false, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	pid := cmd.Process.Pid
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil { // the stop after exec
		return 0, false, fmt.Errorf("wait for exec: %w", err)
	}
	opts := syscall.PTRACE_O_TRACECLONE | syscall.PTRACE_O_TRACESYSGOOD | ptraceExitKill
	if err := syscall.PtraceSetOptions(pid, opts); err != nil {
		cmd.Process.Kill()
		return 0, false, fmt.Errorf("ptrace options: %w", err)
	}
	t := &tracer{pid: pid, writes: writes, inSyscall: map[int]bool{}}
	err := t.loop()
	cmd.Process.Release()
	return t.renames, t.killed, err
}

type tracer struct {
	pid       int
	writes    int
	renames   int
	killed    bool
	inSyscall map[int]bool // thread → between syscall entry and exit
}

// loop resumes every stopped thread of the tracee until its main thread is
// gone, counting renames on syscall entry.
func (t *tracer) loop() error {
	if err := syscall.PtraceSyscall(t.pid, 0); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	for {
		var ws syscall.WaitStatus
		tid, err := syscall.Wait4(-1, &ws, syscall.WALL, nil)
		if err != nil {
			return fmt.Errorf("wait: %w", err)
		}
		if ws.Exited() || ws.Signaled() {
			if tid == t.pid {
				if ws.Exited() && ws.ExitStatus() != 0 {
					return fmt.Errorf("heartbeat process exited with status %d", ws.ExitStatus())
				}
				return nil
			}
			continue
		}
		if !ws.Stopped() {
			continue
		}
		// A stopped thread that vanished with a SIGKILL cannot be resumed;
		// that is not an error.
		_ = syscall.PtraceSyscall(tid, t.signalFor(tid, ws))
	}
}

// signalFor handles one stop and returns the signal to deliver on resume.
func (t *tracer) signalFor(tid int, ws syscall.WaitStatus) int {
	switch sig := ws.StopSignal(); {
	case sig == syscall.SIGTRAP|0x80: // syscall entry or exit (TRACESYSGOOD)
		t.inSyscall[tid] = !t.inSyscall[tid]
		if t.inSyscall[tid] && t.isRename(tid) {
			if t.renames == t.writes {
				syscall.Kill(t.pid, syscall.SIGKILL)
				t.killed = true
			}
			t.renames++
		}
		return 0
	case sig == syscall.SIGTRAP, sig == syscall.SIGSTOP:
		// ptrace events (a new thread) and a new thread's first stop
		return 0
	default:
		return int(sig) // the runtime's own signals (SIGURG, SIGPIPE…)
	}
}

func (t *tracer) isRename(tid int) bool {
	var regs syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(tid, &regs); err != nil {
		return false
	}
	switch regs.Orig_rax {
	case sysRename, sysRenameat, sysRenameat2:
		return true
	}
	return false
}
