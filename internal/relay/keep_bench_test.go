package relay

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkSweepManyAgents measures what the heartbeat's sweep of the
// relays' listings (KeepAgents, keeping every agent: the usual heartbeat,
// nothing dropped) costs at two relays listing MESHNODE_BENCH_PEERS
// agents (10,000), beside the LoadStore every heartbeat that reads relays
// already makes of the same state (bench/forgetsweep.sh).
func BenchmarkSweepManyAgents(b *testing.B) {
	agents := 10000
	if v, err := strconv.Atoi(os.Getenv("MESHNODE_BENCH_PEERS")); err == nil && v > 0 {
		agents = v
	}
	path := filepath.Join(b.TempDir(), "relays.json")
	s, err := LoadStore(path)
	if err != nil {
		b.Fatal(err)
	}
	polled := map[string]bool{}
	for r := range 2 {
		h := s.Held(Relay{URL: fmt.Sprintf("https://relay%d.example/", r), Key: "relay+1234abcd+AAAA"})
		h.Agents = map[string]Listed{}
		for i := range agents {
			u := fmt.Sprintf("https://agent%05d.example/mesh/", i)
			polled[u] = true
			h.Agents[u] = Listed{Size: 3, Root: "AAAA=", Seen: t0}
		}
	}
	if _, err := s.Save(); err != nil {
		b.Fatal(err)
	}
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := LoadStore(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("keep", func(b *testing.B) {
		for b.Loop() {
			if gone := s.KeepAgents(func(u string) bool { return polled[u] }); gone != 0 {
				b.Fatalf("dropped %d agents", gone)
			}
		}
	})
}
