package worker_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
)

// BenchmarkWorkers compares one worker process with four on one
// PostgreSQL queue of 1,000 traces, with the 100 ms scoring command,
// alternating the two in each round, and checks that every trace was
// scored exactly once (docs/queue.md records the figures):
//
//	go test -run '^$' -bench Workers -benchtime 1x ./internal/queue/worker/
//
// MESHNODE_BENCH_TRACES and MESHNODE_BENCH_ROUNDS change the size (1,000
// and 3 by default); one worker alone takes 1,000 x 100 ms at least.
func BenchmarkWorkers(b *testing.B) {
	traces, rounds := envInt("MESHNODE_BENCH_TRACES", 1000), envInt("MESHNODE_BENCH_ROUNDS", 3)
	srv := pgtest.Start(b)
	its := mesh(b, traces)
	times := map[int][]time.Duration{}
	for range b.N {
		for r := range rounds {
			for _, n := range []int{1, 4} {
				log := filepath.Join(b.TempDir(), fmt.Sprintf("scored-%d-%d", r, n))
				s, dsn := newQueue(b, srv, its)
				start := time.Now()
				var procs []*exec.Cmd
				for i := range n {
					cmd := exec.Command(os.Args[0], "-test.run=^$")
					cmd.Env = append(os.Environ(), pgqueue.EnvDSN+"="+dsn, scorerEnv+"="+log,
						workerEnv+"="+fmt.Sprintf("w%d 1m", i))
					cmd.Stderr = os.Stderr
					if err := cmd.Start(); err != nil {
						b.Fatal(err)
					}
					procs = append(procs, cmd)
				}
				for _, cmd := range procs {
					if err := cmd.Wait(); err != nil {
						b.Fatalf("worker process: %v", err)
					}
				}
				times[n] = append(times[n], time.Since(start))
				scoredOnce(b, s, its, log, nil)
			}
		}
	}
	for _, n := range []int{1, 4} {
		slices.Sort(times[n])
		t := times[n]
		b.Logf("%d worker process(es), %d traces: min %v median %v max %v", n, traces, t[0].Round(time.Millisecond), t[len(t)/2].Round(time.Millisecond), t[len(t)-1].Round(time.Millisecond))
		b.ReportMetric(t[len(t)/2].Seconds(), fmt.Sprintf("s/%dworkers", n))
	}
	b.ReportMetric(times[1][len(times[1])/2].Seconds()/times[4][len(times[4])/2].Seconds(), "speedup")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
