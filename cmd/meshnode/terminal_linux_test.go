package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair: what the child writes to tty, the
// test reads from pty.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pseudo-terminal: ", err)
	}
	var n uint32
	if err := ioctl(pty, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		pty.Close()
		t.Skip("no pseudo-terminal number: ", err)
	}
	var unlock int32
	if err := ioctl(pty, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		pty.Close()
		t.Skip("cannot unlock the pseudo-terminal: ", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		pty.Close()
		t.Skip("cannot open the terminal side: ", err)
	}
	t.Cleanup(func() { pty.Close() })
	return pty, tty
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// The real process, its stderr a terminal: the progress line shows and the
// per-peer INFO lines do not, unless --log-format asks for them.
func TestHeartbeatOnARealTerminalIsQuietUnlessAsked(t *testing.T) {
	bin, err := exec.LookPath("meshnode") // the test binary, put on PATH by testscript.Main
	if err != nil {
		t.Skip("no meshnode on PATH: ", err)
	}
	bob := newPeer(t, "bob")
	tests := []struct {
		name    string
		args    []string
		wantLog bool
	}{
		{"default", nil, false},
		{"--log-format text", []string{"--log-format", "text"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newNode(t, map[string]string{"bob": bob.URL})
			pty, tty := openPTY(t)
			cmd := exec.Command(bin, append([]string{"heartbeat", "--dir", dir}, tt.args...)...)
			var stdout bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, tty
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			var screen bytes.Buffer
			copied := make(chan struct{})
			go func() {
				io.Copy(&screen, pty) // ends with EIO once the child has exited
				close(copied)
			}()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("heartbeat: %v\n%s", err, screen.String())
			}
			<-copied
			if !strings.Contains(screen.String(), "polled 1/1 peers (bob)") {
				t.Errorf("no progress line on the terminal:\n%q", screen.String())
			}
			if got := strings.Contains(screen.String(), "msg=poll"); got != tt.wantLog {
				t.Errorf("per-peer log line shown: %v, want %v:\n%q", got, tt.wantLog, screen.String())
			}
			if !strings.Contains(stdout.String(), "files: 1 new traces") {
				t.Errorf("summary:\n%s", stdout.String())
			}
		})
	}
}
