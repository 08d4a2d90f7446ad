package ledger

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestNothingToSealBeforeNextCompaction fills a ledger with a trace a
// day for a year, compacts and saves it at several times, and checks
// that a Compact just before NextCompaction seals nothing more, and one
// at it seals a quarter: the heartbeat that skips Compact before then
// (docs/decisions.md, "A quiet heartbeat") leaves the ledger as Compact
// would.
func TestNothingToSealBeforeNextCompaction(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, now := range []time.Time{
		time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), // the instant 2026-Q1 became sealable
		time.Date(2026, 8, 15, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC),
	} {
		t.Run(now.Format(time.DateOnly), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
			l := New()
			for d := start; d.Before(now); d = d.Add(24 * time.Hour) {
				l.AddTrace(&Trace{Agent: "jolt", AgentURL: jolt, Seq: manifest.Seq(d.YearDay()),
					Hash: manifest.HashBytes(fmt.Appendf(nil, "%v", d)), FirstSeen: d})
			}
			segments := func(at time.Time) int {
				t.Helper()
				compacted(t, l, at)
				if _, err := l.Save(p); err != nil {
					t.Fatal(err)
				}
				segs, err := statefile.ReadSegments(p)
				if err != nil {
					t.Fatal(err)
				}
				return len(segs)
			}
			due := NextCompaction(now)
			if !due.After(now) {
				t.Fatalf("NextCompaction(%v) = %v, not after it", now, due)
			}
			before := segments(now)
			if got := segments(due.Add(-time.Second)); got != before {
				t.Errorf("a second before %v: %d segments, want the %d sealed at %v", due, got, before, now)
			}
			if got := segments(due); got != before+1 {
				t.Errorf("at %v: %d segments, want %d: the next quarter sealed", due, got, before+1)
			}
		})
	}
}
