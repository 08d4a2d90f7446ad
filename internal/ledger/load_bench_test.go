package ledger

import (
	"fmt"
	"github.com/meshnode/meshnode/internal/cputime"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/trace"
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

// withFiles is l with every record carrying what a heartbeat records of
// it: a trace its file and URL, type, category, status and fingerprint,
// a validation its file's URL and the trace's URL.
func withFiles(l *Ledger) *Ledger {
	out := New()
	for _, t := range l.Traces {
		c := *t
		c.File = fmt.Sprintf("traces/%d.md", t.Seq)
		c.URL, c.Type, c.Category, c.Status = c.AgentURL+c.File, "capability", "ops", "pending"
		c.Fingerprint, c.Verified = trace.Fingerprint(len(t.Hash)+int(t.Seq)), true
		out.AddTrace(&c)
	}
	for _, v := range l.Validations {
		c := *v
		c.TraceURL = l.Traces[v.TraceHash].AgentURL + fmt.Sprintf("traces/%d.md", l.Traces[v.TraceHash].Seq)
		c.SourceURL = c.ValidatorURL + "validations/" + string(v.TraceHash[7:19]) + ".md"
		c.Result, c.Total, c.HasScores = "pass", 20, true
		out.AddValidation(&c)
	}
	return out
}

// BenchmarkLoadSealed is what a heartbeat with news loads of three years
// of records, compacted into segments: every record whole (Load) against
// the window's whole and the sealed ones from their summaries
// (LoadCompact, a heartbeat's load), of records bare (a hash, a seq and
// times) and with their files (withFiles). Its allocations per op, and
// the heap the loaded ledger holds (held-MB), do not depend on the
// machine's load:
//
//	go test ./internal/ledger/ -run - -bench LoadSealed -benchmem
func BenchmarkLoadSealed(b *testing.B) {
	now := time.Date(2029, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, h := range []struct {
		name string
		of   func(*Ledger) *Ledger
	}{{"bare", func(l *Ledger) *Ledger { return l }}, {"files", withFiles}} {
		p := filepath.Join(b.TempDir(), "mesh-state", "ledger.json")
		l := h.of(yearOf(50, 3*365, now))
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
			b.Run(h.name+"/"+load.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := load.f(p); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(heldMB(b, func() (*Ledger, error) { return load.f(p) }), "held-MB")
			})
		}
	}
}

// BenchmarkLoadWindow is a heartbeat's load of the ledger's window alone,
// the peers' files it decodes whole: 1,000 agents' 30 days, a trace and
// a validation a day each, with their files (withFiles), in the layout
// the node writes. Its allocations per op do not depend on the machine's
// load, and its CPU per op (cpu-ms/op, the collector's on another core
// included) less than its ns/op:
//
//	go test ./internal/ledger/ -run - -bench LoadWindow -benchmem
func BenchmarkLoadWindow(b *testing.B) {
	now := time.Date(2029, 1, 1, 12, 0, 0, 0, time.UTC)
	p := filepath.Join(b.TempDir(), "mesh-state", "ledger.json")
	if _, err := withFiles(yearOf(1000, 30, now)).Save(p); err != nil {
		b.Fatal(err)
	}
	before := cputime.Used()
	for b.Loop() {
		if _, err := LoadCompact(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cputime.Used()-before).Milliseconds())/float64(b.N), "cpu-ms/op")
}
