//go:build unix

package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLockRefusesASecondHeartbeatUntilReleased(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); !errors.Is(err, ErrLocked) || err != ErrLocked {
		t.Fatalf("second Lock = %v, want ErrLocked unwrapped", err)
	}
	unlock()
	unlock2, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock2()
}

func TestLockHolderSaysWhoHoldsTheLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	want := fmt.Sprintf("pid %d on ", os.Getpid())
	if got := LockHolder(dir); !strings.HasPrefix(got, want) || !strings.Contains(got, ", since ") {
		t.Errorf("LockHolder = %q, want %q… with the start time", got, want)
	}
	for _, tt := range []struct{ name, note, want string }{
		{"no note", "", ""},
		{"a control character", "pid 1 \x1b[2J\n", ""},
		{"one line kept", "pid 7 on box, since then\nmore\n", "pid 7 on box, since then"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(tt.note), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := LockHolder(dir); got != tt.want {
				t.Errorf("LockHolder = %q, want %q", got, tt.want)
			}
		})
	}
}
