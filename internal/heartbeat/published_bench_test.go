package heartbeat

import (
	"fmt"
	"github.com/meshnode/meshnode/internal/cputime"
	"log/slog"
	"maps"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// publishedBench is a ledger the check that a trace's bytes are no other
// agent's validation or dispute (publishedByAnother) reads, and the new
// traces a heartbeat's polls bring, which it is asked of.
type publishedBench struct {
	name                       string
	peers, traces, validations int
	disputes, asked, polled    int // polled: the peers whose MANIFEST.md withdraw reads
}

// BenchmarkPublishedByAnotherCost is what the check that a trace's bytes
// are no other agent's validation or dispute (publishedByAnother) adds to
// a heartbeat with news, side by side with withdraw (a pass over the
// ledger's traces every such heartbeat makes), alternating within each
// iteration. "20k": a ledger of 20,000 traces, 20,000 validations and
// 1,000 disputes of 100 peers, the check asked of 5,000 new traces (a
// poll's rows), every peer's MANIFEST.md read. "3y": the ledger of
// bench/stateyear.sh's three years of 10,000 agents (AGENTS=10000
// DAYS=1095 TRACE_EVERY=30 VOTES=1: 442,331 traces, each validated once
// by another agent) with 1,000 disputes, asked of 100 new traces from 100
// peers, what a heartbeat every 15 minutes brings when 10,000 agents
// publish a trace a day. "ledger": the ledger MESHNODE_BENCH_LEDGER names
// (its ledger.json; read, never written), asked as "3y" is. The metrics
// are per call: microseconds of the check, and of withdraw; CPU
// microseconds of the process during the check, the collector's
// included; and the MB the check allocates (the index it builds, which
// the heartbeat holds to its end, and the set of the hashes brought). Run with
// go test ./internal/heartbeat -run '^$' -bench PublishedByAnotherCost/20k -count 5 -benchtime 50x
// go test ./internal/heartbeat -run '^$' -bench PublishedByAnotherCost/3y -count 5 -benchtime 5x
func BenchmarkPublishedByAnotherCost(b *testing.B) {
	for _, s := range []publishedBench{
		{name: "20k", peers: 100, traces: 20_000, validations: 20_000, disputes: 1_000, asked: 5_000, polled: 100},
		{name: "3y", peers: 10_000, traces: 442_331, validations: 442_331, disputes: 1_000, asked: 100, polled: 100},
		{name: "ledger", peers: 10_000, asked: 100, polled: 100},
	} {
		b.Run(s.name, func(b *testing.B) { benchPublished(b, s) })
	}
}

// benchPublished runs BenchmarkPublishedByAnotherCost on the ledger s
// describes.
func benchPublished(b *testing.B, s publishedBench) {
	l, listings := s.ledger(b)
	fresh := make([]manifest.Hash, s.asked)
	urls := make([]string, s.asked)
	polls := make([]*pollResult, s.polled)
	for i := range polls {
		polls[i] = &pollResult{}
	}
	for i := range fresh {
		fresh[i] = manifest.HashBytes(fmt.Appendf(nil, "new trace %d", i))
		urls[i] = s.url(i)
		r := polls[i%s.polled]
		r.files = append(r.files, fetched{kind: node.KindTrace, entry: manifest.Entry{Hash: fresh[i]}})
	}
	n := &job{ledger: l, log: slog.New(slog.DiscardHandler)}
	var withdraw, check, cpu time.Duration
	var allocated uint64
	var before, after runtime.MemStats
	found := 0
	for b.Loop() {
		start := time.Now()
		n.withdraw(listings)
		withdraw += time.Since(start)
		runtime.ReadMemStats(&before)
		start, c := time.Now(), cputime.Used()
		n.published, n.brought = nil, tracesBrought(polls) // as apply does
		for i, h := range fresh {
			if n.publishedByAnother(urls[i], h) {
				found++
			}
		}
		check, cpu = check+time.Since(start), cpu+cputime.Used()-c
		runtime.ReadMemStats(&after)
		allocated += after.TotalAlloc - before.TotalAlloc
	}
	if found != 0 {
		b.Fatalf("%d new traces found published as another agent's validation or dispute, want none", found)
	}
	b.ReportMetric(float64(withdraw.Microseconds())/float64(b.N), "withdraw-us")
	b.ReportMetric(float64(check.Microseconds())/float64(b.N), "publishedByAnother-us")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "publishedByAnother-cpu-us")
	b.ReportMetric(float64(allocated)/float64(b.N)/(1<<20), "publishedByAnother-MB")
}

// url is the trace URL of peer i.
func (s publishedBench) url(i int) string { return fmt.Sprintf("https://p%05d.example/", i%s.peers) }

// ledger is the ledger s describes, each trace validated by the next
// peer, or the one MESHNODE_BENCH_LEDGER names for "ledger", and the
// listings of the polled peers' MANIFEST.md.
func (s publishedBench) ledger(b *testing.B) (*ledger.Ledger, map[string]*listing) {
	if s.name == "ledger" {
		return s.loadBenchLedger(b)
	}
	l := ledger.New()
	listings := map[string]*listing{}
	for i := range s.traces {
		h := manifest.HashBytes(fmt.Appendf(nil, "trace %d", i))
		l.AddTrace(&ledger.Trace{AgentURL: s.url(i), Seq: manifest.Seq(i/s.peers + 1), Hash: h, Verified: true})
		if i%s.peers >= s.polled {
			continue
		}
		if listings[s.url(i)] == nil {
			listings[s.url(i)] = &listing{hashes: map[manifest.Hash]bool{}}
		}
		listings[s.url(i)].hashes[h] = true
	}
	for i := range s.validations {
		l.AddValidation(&ledger.Validation{ValidatorURL: s.url(i + 1), TraceHash: manifest.HashBytes(fmt.Appendf(nil, "trace %d", i)),
			SourceHash: manifest.HashBytes(fmt.Appendf(nil, "validation %d", i))})
	}
	for i := range s.disputes {
		l.AddDispute(&ledger.Dispute{ReporterURL: s.url(i + 2), ClaimedHash: manifest.HashBytes(fmt.Appendf(nil, "trace %d", i)), Seq: 1,
			SourceHash: manifest.HashBytes(fmt.Appendf(nil, "dispute %d", i))})
	}
	return l, listings
}

// loadBenchLedger loads the ledger MESHNODE_BENCH_LEDGER names, or skips
// b, and lists the traces of its first polled agents (by URL) as their
// MANIFEST.md would.
func (s publishedBench) loadBenchLedger(b *testing.B) (*ledger.Ledger, map[string]*listing) {
	path := os.Getenv("MESHNODE_BENCH_LEDGER")
	if path == "" {
		b.Skip("MESHNODE_BENCH_LEDGER names no ledger")
	}
	l, err := ledger.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	agents := map[string]bool{}
	for _, t := range l.Traces {
		agents[t.AgentURL] = true
	}
	listings := map[string]*listing{}
	for _, url := range slices.Sorted(maps.Keys(agents))[:min(s.polled, len(agents))] {
		listings[url] = &listing{hashes: map[manifest.Hash]bool{}}
	}
	for _, t := range l.Traces {
		if li := listings[t.AgentURL]; li != nil {
			li.hashes[t.Hash] = true
		}
	}
	return l, listings
}
