//go:build unix

package node

import (
	"errors"
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
