package heartbeat

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// TestDeadlineLeavesUnclaimedItemsQueued runs a heartbeat whose deadline has
// already passed when scoring starts: it claims nothing, publishes nothing,
// loses nothing, and the next heartbeat scores everything.
func TestDeadlineLeavesUnclaimedItemsQueued(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	// Without standing (no FOUNDERS.md) the first heartbeat's items stay queued.
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	if sum := beat(t, dir, testNow); sum.Queued != 2 || sum.ValidationsPublished != 0 {
		t.Fatalf("first heartbeat queued %d, published %d; want 2 queued, none published", sum.Queued, sum.ValidationsPublished)
	}
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	sum, err := Run(past, Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow.Add(30 * time.Minute) },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("heartbeat past its deadline: %v", err)
	}
	if sum.ValidationsPublished != 0 {
		t.Errorf("published %d validations after the deadline, want 0", sum.ValidationsPublished)
	}
	items, err := queue.Open(filepath.Join(dir, node.QueueFile)).List()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Status != queue.StatusQueued {
			t.Errorf("%s is %s after a heartbeat past its deadline, want queued", it.ID, it.Status)
		}
	}
	if sum := beat(t, dir, testNow.Add(time.Hour)); sum.ValidationsPublished != 2 {
		t.Fatalf("next heartbeat published %d validations, want 2", sum.ValidationsPublished)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, node.ValidationsDir))
	if len(entries) != 2 {
		t.Errorf("%d files in validations/, want 2", len(entries))
	}
}

// TestStoppedScoringSaysWhy runs the scoring of a queue after its context
// ended, once by the deadline and once by a signal: the warning names the
// reason, and a signal is never called the deadline.
func TestStoppedScoringSaysWhy(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	beat(t, dir, testNow) // no standing yet: the items stay queued
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	interrupted, cancelSignal := context.WithCancelCause(context.Background())
	cancelSignal(errors.New("interrupted by SIGINT (Ctrl-C)"))
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		want, not string
	}{
		{"deadline", past, "heartbeat deadline reached; the queue waits", "stopped"},
		{"signal", interrupted, "heartbeat stopped: interrupted by SIGINT (Ctrl-C); the queue waits", "deadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs strings.Builder
			_, err := Run(tc.ctx, Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow.Add(30 * time.Minute) },
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			if err != nil {
				t.Fatalf("heartbeat: %v", err)
			}
			var warning string
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, "the queue waits") {
					warning = line
				}
			}
			if !strings.Contains(warning, tc.want) || strings.Contains(warning, tc.not) {
				t.Errorf("warning %q, want it to say %q and not %q; all logs:\n%s", warning, tc.want, tc.not, logs.String())
			}
		})
	}
}
