package signal

import (
	"github.com/meshnode/meshnode/internal/cputime"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
)

// BenchmarkNodeGathering is SIGNAL's input and SIGNAL on the node named
// by MESHNODE_BENCH_NODE (read, never written; bench/gather.sh): "first"
// gathers the input from a snapshot just opened, as every heartbeat with
// news does once, parsing each validation file of ours; "again" gathers
// it from a snapshot that gathered it once, as a heartbeat that published
// does before it writes MANIFEST.md; and "compute" computes SIGNAL from
// it with the node's pools. Each reports the CPU seconds of the process
// per op, the collector's included; opening the snapshot is not counted.
func BenchmarkNodeGathering(b *testing.B) {
	dir := os.Getenv("MESHNODE_BENCH_NODE")
	if dir == "" {
		b.Skip("MESHNODE_BENCH_NODE names no node")
	}
	cfg, err := config.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("first", func(b *testing.B) {
		var cpu time.Duration
		for range b.N {
			b.StopTimer()
			s := openNode(b, dir)
			c := cputime.Used()
			b.StartTimer()
			if _, err := FromSnapshot(s, cfg.Agent, cfg.URL); err != nil {
				b.Fatal(err)
			}
			cpu += cputime.Used() - c
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	})
	// The snapshot "again" and "compute" share is opened after "first",
	// so that one snapshot at a time is held, and only when one of them
	// runs.
	shared := sync.OnceValues(func() (gathered, error) {
		s, err := node.Open(dir, node.Options{SealedSummaries: true})
		if err != nil {
			return gathered{}, err
		}
		in, err := FromSnapshot(s, cfg.Agent, cfg.URL)
		return gathered{s, in}, err
	})
	b.Run("again", func(b *testing.B) {
		g, err := shared()
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		cpu := cputime.Used()
		for range b.N {
			if _, err := FromSnapshot(g.s, cfg.Agent, cfg.URL); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cputime.Used()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run("compute", func(b *testing.B) {
		g, err := shared()
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		var cpu time.Duration
		for range b.N {
			b.StopTimer()
			p, _ := LoadPools(dir)
			c := cputime.Used()
			b.StartTimer()
			p.Compute(g.in)
			cpu += cputime.Used() - c
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	})
}

// gathered is a snapshot and the input gathered from it.
type gathered struct {
	s  *node.Snapshot
	in Input
}

func openNode(b *testing.B, dir string) *node.Snapshot {
	s, err := node.Open(dir, node.Options{SealedSummaries: true})
	if err != nil {
		b.Fatal(err)
	}
	return s
}
