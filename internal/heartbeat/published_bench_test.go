package heartbeat

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// BenchmarkPublishedByAnotherCost is what the check that a trace's bytes
// are no other agent's validation or dispute (publishedByAnother) adds to
// a heartbeat with news, side by side with withdraw (a pass over the
// ledger's traces every such heartbeat makes), alternating within each
// iteration: a ledger of 20,000 traces, 20,000 validations and 1,000
// disputes of 100 peers, the index built from nothing and asked of 5,000
// new traces (a poll's rows). The metrics are microseconds a call. Run
// with
// go test ./internal/heartbeat -run '^$' -bench PublishedByAnotherCost -count 5 -benchtime 50x
func BenchmarkPublishedByAnotherCost(b *testing.B) {
	const peers, traces, validations, disputes, asked = 100, 20_000, 20_000, 1_000, 5_000
	l := ledger.New()
	listings := map[string]*listing{}
	url := func(i int) string { return fmt.Sprintf("https://p%03d.example/", i%peers) }
	for i := range traces {
		h := manifest.HashBytes(fmt.Appendf(nil, "trace %d", i))
		l.AddTrace(&ledger.Trace{AgentURL: url(i), Seq: manifest.Seq(i/peers + 1), Hash: h, Verified: true})
		if listings[url(i)] == nil {
			listings[url(i)] = &listing{hashes: map[manifest.Hash]bool{}}
		}
		listings[url(i)].hashes[h] = true
	}
	for i := range validations {
		l.AddValidation(&ledger.Validation{ValidatorURL: url(i + 1), TraceHash: manifest.HashBytes(fmt.Appendf(nil, "trace %d", i)),
			SourceHash: manifest.HashBytes(fmt.Appendf(nil, "validation %d", i))})
	}
	for i := range disputes {
		l.AddDispute(&ledger.Dispute{ReporterURL: url(i + 2), ClaimedHash: manifest.HashBytes(fmt.Appendf(nil, "trace %d", i)), Seq: 1,
			SourceHash: manifest.HashBytes(fmt.Appendf(nil, "dispute %d", i))})
	}
	fresh := make([]manifest.Hash, asked)
	for i := range fresh {
		fresh[i] = manifest.HashBytes(fmt.Appendf(nil, "new trace %d", i))
	}
	urls := make([]string, asked)
	for i := range urls {
		urls[i] = url(i)
	}
	n := &job{ledger: l, log: slog.New(slog.DiscardHandler)}
	var withdraw, check time.Duration
	found := 0
	for b.Loop() {
		start := time.Now()
		n.withdraw(listings)
		withdraw += time.Since(start)
		start = time.Now()
		n.published = nil
		for i, h := range fresh {
			if n.publishedByAnother(urls[i], h) {
				found++
			}
		}
		check += time.Since(start)
	}
	if found != 0 {
		b.Fatalf("%d new traces found published as another agent's validation or dispute, want none", found)
	}
	b.ReportMetric(float64(withdraw.Microseconds())/float64(b.N), "withdraw-us")
	b.ReportMetric(float64(check.Microseconds())/float64(b.N), "publishedByAnother-us")
}
