//go:build unix

package filelock

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const helperEnv = "FILELOCK_TEST_HOLD"

// TestMain lets the test binary hold a lock in a child process, since flock
// excludes processes, not goroutines of one.
func TestMain(m *testing.M) {
	if p := os.Getenv(helperEnv); p != "" {
		unlock, err := Lock(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("held")
		os.Stdin.Read(make([]byte, 1)) // hold until the parent closes stdin
		unlock()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holdInChild locks path in a child process and returns a function that
// makes it release the lock and exit.
func holdInChild(t *testing.T, path string) func() {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if n, _ := out.Read(buf); !strings.HasPrefix(string(buf[:n]), "held") {
		t.Fatalf("child did not take the lock: %q", buf[:n])
	}
	return func() { stdin.Close(); cmd.Wait() }
}

func TestTryLockFailsWhileAnotherProcessHoldsIt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "x.lock")
	release := holdInChild(t, p)
	if _, err := TryLock(p); !errors.Is(err, ErrHeld) {
		release()
		t.Fatalf("TryLock while held = %v, want ErrHeld", err)
	}
	release()
	unlock, err := TryLock(p)
	if err != nil {
		t.Fatalf("TryLock after release = %v", err)
	}
	unlock()
}

func TestLockWaitsForTheHolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	release := holdInChild(t, p)
	got := make(chan error, 1)
	go func() {
		unlock, err := Lock(p)
		if err == nil {
			unlock()
		}
		got <- err
	}()
	select {
	case err := <-got:
		release()
		t.Fatalf("Lock returned (%v) while another process held the lock", err)
	case <-time.After(200 * time.Millisecond):
	}
	release()
	if err := <-got; err != nil {
		t.Fatalf("Lock after release = %v", err)
	}
}

func TestLockReportsAnUnusablePath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(filepath.Join(file, "x.lock")); err == nil || !strings.Contains(err.Error(), "lock ") {
		t.Fatalf("Lock under a regular file = %v, want an error naming the lock", err)
	}
}
