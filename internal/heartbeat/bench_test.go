package heartbeat

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// BenchmarkCorpusCatchUp measures a first heartbeat over the real-mesh
// snapshot served on loopback: 856 traces from 12 peers (plus the bridge
// and three missing agents). Target: under 1 s on a 2-core machine.
func BenchmarkCorpusCatchUp(b *testing.B) {
	corpus := corpustest.Dir(b)
	srv := httptest.NewServer(http.FileServer(http.Dir(corpus)))
	defer srv.Close()
	peers := corpusPeers(b, corpus, srv.URL)
	for b.Loop() {
		b.StopTimer()
		dir := newNode(b, peers, "")
		b.StartTimer()
		if sum := beat(b, dir, testNow); sum.Verified != 855 {
			b.Fatalf("verified %d, want 855", sum.Verified)
		}
	}
	reportPeakHeap(b)
}

// BenchmarkCorpusCatchUpScored is the catch-up by a node with standing (a founder):
// every pending trace is scored by the heuristic and its validation
// written. Target: under 1.5 s on a 2-core machine.
func BenchmarkCorpusCatchUpScored(b *testing.B) {
	corpus := corpustest.Dir(b)
	srv := httptest.NewServer(http.FileServer(http.Dir(corpus)))
	defer srv.Close()
	peers := corpusPeers(b, corpus, srv.URL)
	for b.Loop() {
		b.StopTimer()
		dir := newNode(b, peers, "")
		write(b, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
		b.StartTimer()
		if sum := beat(b, dir, testNow); sum.ValidationsPublished < 800 {
			b.Fatalf("published %d validations, want every pending trace scored", sum.ValidationsPublished)
		}
	}
	reportPeakHeap(b)
}

// BenchmarkNoChangeHeartbeat1000Peers measures a heartbeat that finds
// nothing new over 1,000 peers spread across 50 hosts, each answer delayed
// by 50 ms. Target: under 5 s.
func BenchmarkNoChangeHeartbeat1000Peers(b *testing.B) {
	const hosts, perHost, latency = 50, 20, 50 * time.Millisecond
	var peers [][2]string
	var requests atomic.Int64
	for h := 0; h < hosts; h++ {
		srv := httptest.NewServer(slowPeers(latency, &requests))
		defer srv.Close()
		for p := 0; p < perHost; p++ {
			peers = append(peers, [2]string{fmt.Sprintf("agent-%d-%d", h, p), fmt.Sprintf("%s/a%d/", srv.URL, p)})
		}
	}
	dir := newNode(b, peers, "gossip:\n  enabled: false\n")
	if sum := beat(b, dir, testNow); sum.PeersFailed != 0 {
		b.Fatalf("warm-up heartbeat: %d peers failed: %v", sum.PeersFailed, sum.Failures[0])
	}
	requests.Store(0)
	b.ResetTimer()
	for b.Loop() {
		if sum := beat(b, dir, testNow.Add(time.Hour)); sum.NewTraces != 0 || sum.PeersFailed != 0 {
			b.Fatalf("no-change heartbeat found %d new, %d failed", sum.NewTraces, sum.PeersFailed)
		}
	}
	b.ReportMetric(float64(requests.Load())/float64(b.N), "requests/op")
	reportPeakHeap(b)
}

// slowPeers serves any number of agents under /aN/, each with one trace,
// answering conditional requests with 304, after a fixed latency.
func slowPeers(latency time.Duration, requests *atomic.Int64) http.Handler {
	trace := []byte("# One\n\n## Work\n\nSomething.\n")
	m := manifest.Manifest{Sequence: 1, Entries: []manifest.Entry{
		{Seq: 1, Hash: manifest.HashBytes(trace), File: "traces/001.md", Type: "knowledge", Status: "validated"},
	}}
	body := m.Format()
	const etag = `"v1"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		time.Sleep(latency)
		switch path := r.URL.Path; {
		case path == "/robots.txt":
			http.NotFound(w, r)
		case len(path) > 12 && path[len(path)-11:] == "MANIFEST.md":
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", etag)
			w.Write(body)
		case len(path) > 13 && path[len(path)-13:] == "traces/001.md":
			w.Write(trace)
		default:
			http.NotFound(w, r)
		}
	})
}

// reportPeakHeap reports the heap in use at the end of the benchmark, an
// upper bound on what one heartbeat keeps.
func reportPeakHeap(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MB")
}

// BenchmarkSignedLogCost is what the signed log adds to a heartbeat of a
// node with 2,000 published files, side by side with the same node
// publishing MANIFEST.md alone, alternating within each iteration: an
// idle heartbeat, then one that publishes one new trace, in each mode.
// The metrics are milliseconds a heartbeat. Run with
// go test ./internal/heartbeat -run '^$' -bench SignedLogCost -count 5 -benchtime 3x
func BenchmarkSignedLogCost(b *testing.B) {
	const rows = 2_000
	type node struct {
		name, dir, key string
		idle, oneNew   time.Duration
	}
	var nodes []*node
	for _, name := range []string{"manifest-only", "manifest+log"} {
		dir, skey := keyedNode(b)
		if name == "manifest-only" {
			skey = ""
		}
		addOwnTraces(b, dir, 0, rows)
		if _, err := beatKeyed(b, dir, skey, testNow, 0); err != nil {
			b.Fatal(err)
		}
		nodes = append(nodes, &node{name: name, dir: dir, key: skey})
	}
	at, next := testNow, rows
	timed := func(n *node) time.Duration {
		start := time.Now()
		if _, err := beatKeyed(b, n.dir, n.key, at, 0); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for b.Loop() {
		at = at.Add(time.Minute)
		for _, n := range nodes {
			n.idle += timed(n)
		}
		at = at.Add(time.Minute)
		for _, n := range nodes {
			addOwnTraces(b, n.dir, next, next+1)
			n.oneNew += timed(n)
		}
		next++
	}
	for _, n := range nodes {
		b.ReportMetric(float64(n.idle.Milliseconds())/float64(b.N), "ms-idle-"+n.name)
		b.ReportMetric(float64(n.oneNew.Milliseconds())/float64(b.N), "ms-one-new-"+n.name)
	}
}
