package check

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

// TestGateTakesTheHeartbeatsShardSegments: a heartbeat that seals the
// ledger writes shard segments (mesh-state/ledger-segments/shard-<x>/)
// and their summaries; the gate passes them from the heartbeat, refuses
// them from a pull request, and reads the sealed records through them,
// so a validation of a sealed trace checks as one of a trace in a peer's
// file does, and one of an unknown trace still fails.
func TestGateTakesTheHeartbeatsShardSegments(t *testing.T) {
	dir := cleanNode(t)
	p := filepath.Join(dir, filepath.FromSlash(node.LedgerFile))
	l, err := ledger.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Compact(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	var written []string
	shards := 0
	filepath.WalkDir(statefile.SegmentsDir(p), func(fp string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, fp)
			written = append(written, filepath.ToSlash(rel))
			if strings.Contains(rel, "shard-") {
				shards++
			}
		}
		return nil
	})
	if shards == 0 {
		t.Fatalf("no shard segment among %v", written)
	}
	if ps := Check(Options{Dir: dir, Base: dir, Files: written, Agent: agent, URL: ourURL, Heartbeat: true}); len(ps) != 0 {
		t.Errorf("the heartbeat's segments: %v", lines(ps))
	}
	base := cleanNode(t)
	ps := Check(Options{Dir: dir, Base: base, Files: written, Agent: agent, URL: ourURL})
	if len(ps) != len(written) {
		t.Errorf("a pull request's segments: %d problems for %d files: %v", len(ps), len(written), lines(ps))
	}
	for _, p := range ps {
		if !strings.Contains(p.Message, "written only by the heartbeat") {
			t.Errorf("problem %s, want it written only by the heartbeat", p)
		}
	}
	bob := "validations/" + validation.FileName(bobTrace)
	write(t, dir, bob, validationFile(bobTrace, bobTraceURL))
	if ps := Check(options(dir, bob)); len(ps) != 0 {
		t.Errorf("validation of a sealed trace: %v", lines(ps))
	}
}
