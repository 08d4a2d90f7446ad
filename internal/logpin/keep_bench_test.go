package logpin

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkSweepManyPeers measures what the heartbeat's sweep of pins
// (Keep, keeping every pin: the usual heartbeat, nothing forgotten) costs
// at MESHNODE_BENCH_PEERS pinned peers (10,000), beside the Load every
// heartbeat already makes of the same pins (bench/forgetsweep.sh).
func BenchmarkSweepManyPeers(b *testing.B) {
	peers := 10000
	if v, err := strconv.Atoi(os.Getenv("MESHNODE_BENCH_PEERS")); err == nil && v > 0 {
		peers = v
	}
	path := filepath.Join(b.TempDir(), "log-pins.json")
	ps, err := Load(path)
	if err != nil {
		b.Fatal(err)
	}
	polled := map[string]bool{}
	for i := range peers {
		u := fmt.Sprintf("https://agent%05d.example/mesh/", i)
		polled[u] = true
		ps.Put(&Pin{URL: u, Key: "agent+1234abcd+AAAA", Checkpoint: "agent\n3\nAAAA=\n", LastSeq: 3,
			Accepted: []Tree{{Size: 3, Root: "AAAA="}}, Tiles: map[string]string{"tile/1/000.p/1": "BBBB"}})
	}
	if _, err := ps.Save(); err != nil {
		b.Fatal(err)
	}
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("keep", func(b *testing.B) {
		for b.Loop() {
			if gone := ps.Keep(func(u string) bool { return polled[u] }); gone != nil {
				b.Fatalf("forgot %d pins", len(gone))
			}
		}
	})
}
