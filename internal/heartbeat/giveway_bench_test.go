package heartbeat

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// BenchmarkGiveWayCost is what giveWay adds to a heartbeat with news,
// side by side with withdraw alone, alternating within each iteration: a
// ledger of 20,000 traces of 100 peers, 5,000 copies and 1,000 disputes,
// every peer's MANIFEST.md read whole and listing all its files, so that
// nothing is given up (the steady state). The metrics are microseconds a
// call. Run with
// go test ./internal/heartbeat -run '^$' -bench GiveWayCost -count 5 -benchtime 50x
func BenchmarkGiveWayCost(b *testing.B) {
	const peers, traces, copied, disputes = 100, 20_000, 5_000, 1_000
	l := ledger.New()
	listings := map[string]*listing{}
	url := func(i int) string { return fmt.Sprintf("https://p%03d.example/", i%peers) }
	list := func(u string, h manifest.Hash) {
		if listings[u] == nil {
			listings[u] = &listing{hashes: map[manifest.Hash]bool{}}
		}
		listings[u].hashes[h] = true
	}
	for i := range traces {
		h := manifest.HashBytes(fmt.Appendf(nil, "trace %d", i))
		l.AddTrace(&ledger.Trace{AgentURL: url(i), Seq: manifest.Seq(i/peers + 1), Hash: h, Verified: true})
		list(url(i), h)
		if i < copied {
			l.AddCopy(&ledger.Trace{AgentURL: url(i + 1), Seq: manifest.Seq(i + 1), Hash: h, Verified: true})
			list(url(i+1), h)
		}
		if i < disputes {
			l.AddDispute(&ledger.Dispute{ReporterURL: url(i + 2), ClaimedHash: h, Seq: 1, SourceHash: manifest.HashBytes(fmt.Appendf(nil, "d %d", i))})
		}
	}
	n := &job{ledger: l, log: slog.New(slog.DiscardHandler)}
	var alone, with time.Duration
	for b.Loop() {
		start := time.Now()
		n.withdraw(listings)
		alone += time.Since(start)
		start = time.Now()
		n.withdraw(listings)
		if err := n.giveWay(listings); err != nil {
			b.Fatal(err)
		}
		with += time.Since(start)
	}
	if len(l.Copies) != copied {
		b.Fatalf("%d copies, want %d: something was promoted", len(l.Copies), copied)
	}
	b.ReportMetric(float64(alone.Microseconds())/float64(b.N), "withdraw-us")
	b.ReportMetric(float64(with.Microseconds())/float64(b.N), "withdraw+giveWay-us")
}
