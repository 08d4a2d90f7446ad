package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
)

// synthetic is a mesh of generated peers: peer j publishes traces
// 1..traces, one more a day for each of `days`, and the first peer
// `extra` more.
type synthetic struct {
	traces int
	days   atomic.Int64
	extra  atomic.Int64
	mu     sync.Mutex
	cache  map[string][]byte // "j/n" → MANIFEST.md of peer j with n traces
}

func serveSynthetic(peers, hosts, traces int, latency time.Duration) []roster.Agent {
	sim := &synthetic{traces: traces, cache: map[string][]byte{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer inFlight.enter()()
		time.Sleep(latency)
		sim.serve(w, r)
	})
	var out []roster.Agent
	for i := 0; i < hosts; i++ {
		srv := serve(h)
		if i == 0 {
			fmt.Printf("publish %s/_meshsim/publish\n", srv.URL)
		}
		for j := i; j < peers; j += hosts {
			out = append(out, roster.Agent{Name: fmt.Sprintf("agent-%d", j), URL: fmt.Sprintf("%s/a%d/", srv.URL, j), Joined: "2026-02-01"})
		}
	}
	return out
}

func (s *synthetic) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch p {
	case "/_meshsim/publish":
		fmt.Fprintln(w, s.extra.Add(1))
		return
	case "/_meshsim/day":
		fmt.Fprintln(w, s.days.Add(1))
		return
	case "/_meshsim/conns":
		fmt.Fprintln(w, conns.Load())
		return
	case "/_meshsim/inflight":
		fmt.Fprintln(w, inFlight.most.Swap(0))
		return
	}
	parts := strings.Split(strings.TrimPrefix(p, "/a"), "/")
	j, err := strconv.Atoi(parts[0])
	if err != nil || len(parts) < 2 {
		http.NotFound(w, r)
		return
	}
	n := s.count(j)
	switch rest := strings.Join(parts[1:], "/"); {
	case rest == manifest.FileName:
		etag := fmt.Sprintf(`"v%d"`, n)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Write(s.manifest(j, n))
	case strings.HasPrefix(rest, "traces/"):
		seq, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rest, "traces/"), ".md"))
		if err != nil || seq < 1 || seq > n {
			http.NotFound(w, r)
			return
		}
		w.Write(traceOf(j, seq))
	default:
		http.NotFound(w, r)
	}
}

func (s *synthetic) count(j int) int {
	n := s.traces + int(s.days.Load())
	if j == 0 {
		n += int(s.extra.Load())
	}
	return n
}

func (s *synthetic) manifest(j, n int) []byte {
	key := fmt.Sprintf("%d/%d", j, n)
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.cache[key]; ok {
		return m
	}
	m := manifest.Manifest{Agent: fmt.Sprintf("agent-%d", j), Sequence: manifest.Seq(n)}
	for seq := 1; seq <= n; seq++ {
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(traceOf(j, seq)),
			File: fmt.Sprintf("traces/%d.md", seq), Type: "knowledge", Status: "pending",
			Submitted: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seq) * time.Hour)})
	}
	body := m.Format()
	s.cache[key] = body
	return body
}

// words are what generated traces are written with.
var words = strings.Fields(`cache retry backoff latency manifest cursor hash ledger queue lease scorer
heuristic fingerprint peer host robots cooldown budget deadline gossip roster validation dispute
signal standing founder presence heartbeat commit push branch workflow token timeout socket stream
header etag gzip proxy resolver certificate rotation schema migration index shard replica quorum
snapshot compaction journal checkpoint throughput benchmark profile allocation goroutine channel`)

// traceOf is trace seq of peer j: about 3 kB of sections and sentences,
// the same bytes every time, different for every (j, seq).
func traceOf(j, seq int) []byte {
	rng := rand.New(rand.NewPCG(uint64(j), uint64(seq)))
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.ToUpper(w[0][:1]) + strings.Join(w, " ")[1:] + "."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Trace %d of agent %d: %s\n\n", seq, j, sentence(5))
	for _, sec := range []string{"Context", "Work", "Evidence", "Result"} {
		fmt.Fprintf(&b, "## %s\n\n", sec)
		for range 3 {
			fmt.Fprintf(&b, "%s %s %s\n\n", sentence(9), sentence(12), sentence(7))
		}
	}
	fmt.Fprintf(&b, "Measured %d ms over %d runs at %d%% load.\n", 10+rng.IntN(900), 3+rng.IntN(20), rng.IntN(100))
	return []byte(b.String())
}
