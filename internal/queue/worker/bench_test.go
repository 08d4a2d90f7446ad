package worker_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue/pgtest"
)

// BenchmarkWorkers compares one worker with four on one PostgreSQL queue
// of 100 traces, with the 100 ms scoring command, alternating the two in
// each round (docs/queue.md records the figures):
//
//	go test -run '^$' -bench Workers -benchtime 1x ./internal/queue/worker/
func BenchmarkWorkers(b *testing.B) {
	const traces, rounds = 100, 5
	srv := pgtest.Start(b)
	log := filepath.Join(b.TempDir(), "scored")
	b.Setenv(scorerEnv, log)
	its := mesh(b, traces)
	times := map[int][]time.Duration{}
	for range b.N {
		for range rounds {
			for _, n := range []int{1, 4} {
				s, _ := newQueue(b, srv, its)
				start := time.Now()
				var wg sync.WaitGroup
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := newWorker(s, fmt.Sprintf("w%d", i), log).Run(context.Background()); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
				times[n] = append(times[n], time.Since(start))
			}
		}
	}
	for _, n := range []int{1, 4} {
		slices.Sort(times[n])
		t := times[n]
		b.Logf("%d worker(s), %d traces: min %v median %v max %v", n, traces, t[0].Round(time.Millisecond), t[len(t)/2].Round(time.Millisecond), t[len(t)-1].Round(time.Millisecond))
		b.ReportMetric(t[len(t)/2].Seconds(), fmt.Sprintf("s/%dworkers", n))
	}
	b.ReportMetric(times[1][len(times[1])/2].Seconds()/times[4][len(times[4])/2].Seconds(), "speedup")
}
