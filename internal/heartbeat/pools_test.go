package heartbeat

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// TestHeartbeatKeepsAssignmentPoolsBetweenRuns: under mesh-2026-4 the
// heartbeat writes the pools it computed to mesh-state/assignment-pools.json,
// the next heartbeat takes them from there and computes none (and
// rewrites nothing), and a damaged file is ignored, the pools computed
// again and the file rewritten whole; under mesh-2026-3 there is no file.
func TestHeartbeatKeepsAssignmentPoolsBetweenRuns(t *testing.T) {
	computed := -1
	poolsComputed = func(n int) { computed = n }
	t.Cleanup(func() { poolsComputed = nil })
	founders := "tester | http://127.0.0.1:1/tester/\n"
	for i := 1; i <= 7; i++ {
		founders += fmt.Sprintf("f%d | https://f%d.example/\n", i, i)
	}
	srv, _ := busyPeer(t, 12)
	file := func(dir string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(node.PoolsFile)))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return data
	}

	dir := newNode(t, [][2]string{{"busy", srv.URL + "/"}}, "")
	write(t, dir, node.FoundersFile, "rules: mesh-2026-4\n"+founders)
	beat(t, dir, testNow)
	first := file(dir)
	if computed < 1 || first == nil {
		t.Fatalf("first heartbeat: %d pools computed, file %q", computed, first)
	}
	if _, err := signal.ReadPools(first); err != nil {
		t.Fatalf("the file written does not read: %v", err)
	}
	if sum := beat(t, dir, testNow); computed != 0 || sum.Changed || !bytes.Equal(file(dir), first) {
		t.Fatalf("second heartbeat: %d pools computed, changed %v, file rewritten %v", computed, sum.Changed, !bytes.Equal(file(dir), first))
	}
	write(t, dir, node.PoolsFile, string(first[:len(first)/2]))
	beat(t, dir, testNow)
	if computed < 1 || !bytes.Equal(file(dir), first) {
		t.Fatalf("after damage: %d pools computed, file rewritten whole %v", computed, bytes.Equal(file(dir), first))
	}

	old := newNode(t, [][2]string{{"busy", srv.URL + "/"}}, "")
	write(t, old, node.FoundersFile, "rules: mesh-2026-3\n"+founders)
	beat(t, old, testNow)
	if data := file(old); data != nil {
		t.Fatalf("under mesh-2026-3 the heartbeat wrote %s", data)
	}
}
