package heartbeat

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
)

// A watching node skips a tick while the node is busy: with NoWait a held
// lock is an immediate node.ErrLocked, not a wait of lockWait.
func TestNoWaitGivesUpAtOnceWhileTheLockIsHeld(t *testing.T) {
	dir := newNode(t, nil, "")
	unlock, err := node.Lock(dir) // another open file description: flock excludes it
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), NoWait: true}
	if _, err := Run(context.Background(), opts); !errors.Is(err, node.ErrLocked) {
		t.Fatalf("Run with the lock held = %v, want node.ErrLocked", err)
	}
	unlock()
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatalf("Run after the lock was released: %v", err)
	}
}
