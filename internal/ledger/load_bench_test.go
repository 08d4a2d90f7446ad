package ledger

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// yearOf is a ledger of agents publishing and validating each other daily
// for days days up to now: a trace a day each, and a validation of it by
// the next agent.
func yearOf(agents, days int, now time.Time) *Ledger {
	l := New()
	for d := range days {
		at := now.Add(-time.Duration(days-d) * 24 * time.Hour)
		for a := range agents {
			url := fmt.Sprintf("https://agent-%d.example/traces/", a)
			h := manifest.Hash(fmt.Sprintf("sha256:%064x", d*agents+a))
			l.AddTrace(&Trace{Agent: fmt.Sprintf("agent-%d", a), AgentURL: url, Seq: manifest.Seq(d + 1), Hash: h, Submitted: at, FirstSeen: at})
			v := fmt.Sprintf("https://agent-%d.example/validations/", (a+1)%agents)
			l.AddValidation(&Validation{ValidatorURL: v, TraceHash: h, SourceHash: manifest.Hash(fmt.Sprintf("sha256:%064x", 1<<40+d*agents+a)), ValidatedAt: at})
		}
	}
	return l
}

// BenchmarkQuietLedger is a heartbeat's ledger work when nothing is new
// (Load, Compact, Save) on a year of records, with its records all in
// peers' files ("flat", as nodes before segments kept them) and compacted
// into segments. Its allocations per op do not depend on the machine's
// load:
//
//	go test ./internal/ledger/ -run - -bench QuietLedger -benchmem
func BenchmarkQuietLedger(b *testing.B) {
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, compact := range []bool{false, true} {
		name := map[bool]string{false: "flat", true: "compacted"}[compact]
		b.Run(name, func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "mesh-state", "ledger.json")
			l := yearOf(50, 365, now)
			if compact {
				if err := l.Compact(now); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := l.Save(p); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				l, err := Load(p)
				if err != nil {
					b.Fatal(err)
				}
				if compact {
					if err := l.Compact(now); err != nil {
						b.Fatal(err)
					}
				}
				if changed, err := l.Save(p); err != nil || changed {
					b.Fatalf("quiet save: changed=%v err=%v", changed, err)
				}
			}
		})
	}
}

// heldMB is the heap, in MB, that the ledger load returns holds once
// the garbage of its reading is collected: what stays for the rest of a
// heartbeat.
func heldMB(b *testing.B, load func() (*Ledger, error)) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l, err := load()
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(l)
	return float64(after.HeapAlloc-before.HeapAlloc) / 1e6
}

// BenchmarkLoadSealed is what a heartbeat with news loads of a year of
// records, compacted into segments: every record whole (Load) against
// the window's whole and the sealed ones from their summaries
// (LoadCompact, a heartbeat's load). Its allocations per op, and the
// heap the loaded ledger holds (held-MB), do not depend on the machine's
// load:
//
//	go test ./internal/ledger/ -run - -bench LoadSealed -benchmem
func BenchmarkLoadSealed(b *testing.B) {
	now := time.Date(2029, 1, 1, 12, 0, 0, 0, time.UTC)
	p := filepath.Join(b.TempDir(), "mesh-state", "ledger.json")
	l := yearOf(50, 3*365, now)
	if err := l.Compact(now); err != nil {
		b.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		b.Fatal(err)
	}
	for _, load := range []struct {
		name string
		f    func(string) (*Ledger, error)
	}{{"whole", Load}, {"summaries", LoadCompact}} {
		b.Run(load.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := load.f(p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(heldMB(b, func() (*Ledger, error) { return load.f(p) }), "held-MB")
		})
	}
}
