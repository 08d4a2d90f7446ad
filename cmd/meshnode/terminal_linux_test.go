package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/meshnode/meshnode/internal/node"
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

// onTerminal runs the real meshnode process as a person does at a
// terminal: stdin and stdout are a pseudo-terminal on which input is
// typed, and stderr is the terminal too unless errw is given. It returns
// what the terminal showed and how the process ended.
func onTerminal(t *testing.T, input string, errw io.Writer, args ...string) (screen string, err error) {
	t.Helper()
	bin, lookErr := exec.LookPath("meshnode") // the test binary, put on PATH by testscript.Main
	if lookErr != nil {
		t.Skip("no meshnode on PATH: ", lookErr)
	}
	pty, tty := openPTY(t)
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if errw != nil {
		cmd.Stderr = errw
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	// The terminal holds typed lines until the process reads them, one
	// line per read, as when a person types ahead.
	if _, err := io.WriteString(pty, input); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&out, pty) // ends with EIO once the process has exited
		close(copied)
	}()
	err = cmd.Wait()
	<-copied
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), err
}

// trace new at a terminal shows the path and what to do next on stdout
// (it printed the next step on stderr, prefixed "meshnode:" like an
// error); a type the mesh does not use is warned about, the known ones
// named, and kept.
func TestTraceNewOnATerminal(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	screen, err := onTerminal(t, "", &stderr, "trace", "new", "--dir", dir, "--now", "2026-03-01T12:00:00Z", "Retry ladders")
	if err != nil {
		t.Fatalf("trace new: %v\n%s%s", err, screen, stderr.String())
	}
	path := filepath.Join(dir, "traces", "2026-03-01-retry-ladders.md")
	want := path + "\nnext: edit it, delete the line \"draft: true\", and commit; the next heartbeat publishes it\n"
	if screen != want || stderr.Len() != 0 {
		t.Errorf("terminal shows %q and stderr %q, want %q and nothing", screen, stderr.String(), want)
	}

	screen, err = onTerminal(t, "", &stderr, "trace", "new", "--dir", dir, "--type", "bogus", "Odd one")
	if err != nil {
		t.Fatalf("trace new --type bogus: %v\n%s%s", err, screen, stderr.String())
	}
	if w := "meshnode: trace new: warning: type \"bogus\" is not one the mesh uses (ask, bug, capability,"; !strings.HasPrefix(stderr.String(), w) {
		t.Errorf("stderr %q, want a warning starting %q", stderr.String(), w)
	}
	written := strings.SplitN(screen, "\n", 2)[0]
	if data, err := os.ReadFile(written); err != nil || !strings.Contains(string(data), "type: bogus\n") {
		t.Errorf("the trace does not keep the type as given (%v):\n%s", err, data)
	}
}

// termSession is the real meshnode process on a pseudo-terminal (stdin,
// stdout and stderr), driven as a person drives it: wait until the screen
// shows something, then type or press Ctrl-C.
type termSession struct {
	t      *testing.T
	cmd    *exec.Cmd
	pty    *os.File
	mu     sync.Mutex
	screen bytes.Buffer
	more   chan struct{} // a value after each read of the terminal
	done   chan struct{} // closed when the terminal is closed
}

func startTerminal(t *testing.T, args ...string) *termSession {
	t.Helper()
	bin, err := exec.LookPath("meshnode") // the test binary, put on PATH by testscript.Main
	if err != nil {
		t.Skip("no meshnode on PATH: ", err)
	}
	pty, tty := openPTY(t)
	s := &termSession{t: t, cmd: exec.Command(bin, args...), pty: pty, more: make(chan struct{}, 1), done: make(chan struct{})}
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = tty, tty, tty
	// Its own session with the terminal as its controlling one, so that
	// Ctrl-C typed on it is a SIGINT, as in a shell.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := pty.Read(buf)
			s.mu.Lock()
			s.screen.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.more <- struct{}{}:
			default:
			}
			if err != nil {
				return // EIO once the process has exited
			}
		}
	}()
	return s
}

// Screen is everything the terminal showed so far, with "\r\n" as "\n".
func (s *termSession) Screen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.ReplaceAll(s.screen.String(), "\r\n", "\n")
}

// waitFor waits until the screen shows want.
func (s *termSession) waitFor(want string) { s.t.Helper(); s.waitForN(want, 1) }

// waitForN waits until the screen shows want n times.
func (s *termSession) waitForN(want string, n int) {
	s.t.Helper()
	for strings.Count(s.Screen(), want) < n {
		select {
		case <-s.more:
		case <-s.done:
			if strings.Count(s.Screen(), want) < n {
				s.t.Fatalf("the terminal never showed %q %d times:\n%s", want, n, s.Screen())
			}
		case <-time.After(60 * time.Second): // a hang guard, not a measure
			s.t.Fatalf("the terminal did not show %q within a minute:\n%s", want, s.Screen())
		}
	}
}

// typeIn types text on the terminal; "\x03" is Ctrl-C.
func (s *termSession) typeIn(text string) {
	s.t.Helper()
	if _, err := io.WriteString(s.pty, text); err != nil {
		s.t.Fatal(err)
	}
}

// wait waits for the process to end and returns how it ended.
func (s *termSession) wait() error {
	err := s.cmd.Wait()
	<-s.done
	return err
}

// watch on a terminal with polling off, the default, says so in a plain
// line that says how to turn it on, at the start and in its status line
// (it said "[polling off (/poll on) · inbox 0]"), and polls nobody;
// Ctrl-C ends it with exit 0.
func TestWatchOnATerminalSaysItPollsNothingUntilTurnedOn(t *testing.T) {
	bob := newCountingPeer(t, "bob")
	dir := newNode(t, map[string]string{"bob": bob.URL})
	s := startTerminal(t, "watch", "--dir", dir)
	s.waitFor("inbox 0]")
	s.typeIn("/status\n")
	s.waitForN("inbox 0]", 2)
	s.typeIn("\x03")
	if err := s.wait(); err != nil {
		t.Fatalf("Ctrl-C: %v\n%s", err, s.Screen())
	}
	screen := s.Screen()
	for _, want := range []string{
		"watching " + dir + ": polling is off, so no peer is polled until you type /poll on (or set watch.enabled: true in mesh.yaml)\n",
		"\n[polling off: type /poll on to start · inbox 0]\n",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, screen)
		}
	}
	if n := bob.requests.Load(); n != 0 {
		t.Errorf("bob got %d requests with polling off", n)
	}
}

// init on a terminal, as a person answers it: an empty name and a bad URL
// are asked again with the reason (the first said "no terminal to ask
// on", the second aborted init), and the node is written.
func TestInitOnATerminalAsksAgainAfterAnAnswerItCannotUse(t *testing.T) {
	t.Setenv("GITHUB_REPOSITORY", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	dir := t.TempDir()
	s := startTerminal(t, "init", "--dir", dir)
	s.waitFor("Agent name: ")
	s.typeIn("\n")
	s.waitForN("Agent name: ", 2)
	s.typeIn("two words\n")
	s.waitForN("Agent name: ", 3)
	s.typeIn("ada\n")
	s.waitFor("Pages URL (where MANIFEST.md will be served): ")
	s.typeIn("ftp://ada.example/\n")
	s.waitForN("Pages URL (where MANIFEST.md will be served): ", 2)
	s.typeIn("https://ada.github.io/node/\n")
	s.waitFor("Model (what writes this node's traces): ")
	s.typeIn("\n\n\n")
	if err := s.wait(); err != nil {
		t.Fatalf("init: %v\n%s", err, s.Screen())
	}
	screen := s.Screen()
	for _, want := range []string{
		"Agent name: \na name is needed: the one peers will know this node by, like jolt37: try again\nAgent name: ",
		"two words\nagent name \"two words\" must start with a letter",
		"ftp://ada.example/\n", ": try again\nPages URL",
		"agent ada at https://ada.github.io/node/\n",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "no terminal") {
		t.Errorf("init says there is no terminal, on one:\n%s", screen)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "mesh.yaml")); err != nil || !strings.Contains(string(data), "url: https://ada.github.io/node/\n") {
		t.Errorf("mesh.yaml (%v):\n%s", err, data)
	}
}

// A heartbeat that finds another running on the node says at once that it
// waits, for whom (the holder's pid) and how long, then runs once the
// other ends (it waited up to two minutes without a word).
func TestHeartbeatSaysItWaitsForTheOneRunning(t *testing.T) {
	dir := newNode(t, nil)
	unlock, err := node.Lock(dir) // the heartbeat running: this test process
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	s := startTerminal(t, "heartbeat", "--dir", dir)
	want := fmt.Sprintf("meshnode: another heartbeat is running on this node (pid %d on ", os.Getpid())
	s.waitFor(want)
	s.waitFor("; mesh-state/heartbeat.lock): waiting up to 2m0s for it to finish\n")
	unlock()
	if err := s.wait(); err != nil {
		t.Fatalf("heartbeat after the other ended: %v\n%s", err, s.Screen())
	}
	if !strings.Contains(s.Screen(), "peers: 0 polled") {
		t.Errorf("no summary after the wait:\n%s", s.Screen())
	}
}
