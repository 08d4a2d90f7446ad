package queue

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// BenchmarkActiveManyPeers reads the items at work of a queue that holds
// one item for each of MESHNODE_BENCH_PEERS peers (default 10,000), as a
// heartbeat does once a run: "warm" by a File that read the queue before
// (watch mode), "cold" by a new File each time (one process a heartbeat).
func BenchmarkActiveManyPeers(b *testing.B) {
	peers := 10000
	if v, err := strconv.Atoi(os.Getenv("MESHNODE_BENCH_PEERS")); err == nil && v > 0 {
		peers = v
	}
	q, p := newQueue(b)
	its := make([]Item, peers)
	for i := range its {
		its[i] = item(i + 1)
		its[i].FromURL = fmt.Sprintf("https://p%05d.example/", i)
	}
	if _, err := q.Enqueue(its...); err != nil {
		b.Fatal(err)
	}
	for _, warm := range []bool{true, false} {
		b.Run(map[bool]string{true: "warm", false: "cold"}[warm], func(b *testing.B) {
			for b.Loop() {
				r := q
				if !warm {
					r = Open(p)
				}
				a, err := r.Active()
				if err != nil || len(a.Items) != peers {
					b.Fatalf("active: %d items, %v", len(a.Items), err)
				}
			}
		})
	}
}
