package heartbeat

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
)

// testNow is the clock of every heartbeat test.
var testNow = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

// newNode creates a node directory whose AGENTS.md lists peers (name → URL)
// and whose mesh.yaml adds extra lines to the defaults tests need.
func newNode(t testing.TB, peers [][2]string, extra string) string {
	t.Helper()
	dir := t.TempDir()
	var agents strings.Builder
	agents.WriteString("# name | trace_url | joined\n")
	for _, p := range peers {
		fmt.Fprintf(&agents, "%s | %s | 2026-02-01\n", p[0], p[1])
	}
	cfg := "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\n" + gossipOnLoopback(extra)
	write(t, dir, "mesh.yaml", cfg)
	write(t, dir, "AGENTS.md", agents.String())
	return dir
}

// gossipOnLoopback adds gossip.allow_private_addresses to the extra config,
// so that peers learned by gossip, all on 127.0.0.1 in tests, are polled.
func gossipOnLoopback(extra string) string {
	const key = "gossip:\n  allow_private_addresses: true\n"
	if strings.Contains(extra, "gossip:\n") {
		return strings.Replace(extra, "gossip:\n", key, 1)
	}
	return extra + key
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// beat runs one heartbeat at the given time and fails the test on a local
// error.
func beat(t testing.TB, dir string, now time.Time) *report.Summary {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	sum, err := Run(context.Background(), Options{
		Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	return sum
}

func loadState(t testing.TB, dir string) *state.State {
	t.Helper()
	s, err := state.LoadAll(filepath.Join(dir, node.CursorsFile))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func loadLedger(t testing.TB, dir string) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Load(filepath.Join(dir, node.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	return l
}
