// Command meshsim serves a simulated mesh on loopback for the heartbeat
// benchmarks in bench/heartbeat.sh, and writes a node directory whose
// AGENTS.md points at it. It serves until it is killed.
//
//	meshsim -node DIR -corpus ../shared/corpus/mycel-basecamp
//	meshsim -node DIR -peers 1000 -hosts 50 -latency 50ms -traces 20
//
// Synthetic peers each publish -traces pending traces of about 3 kB,
// distinct in wording; a GET of the printed publish URL adds one more to
// the first peer. The node is a founder (FOUNDERS.md), so it scores.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/roster"
)

func main() {
	node := flag.String("node", "", "node directory to create (mesh.yaml and AGENTS.md)")
	corpus := flag.String("corpus", "", "serve this real-mesh snapshot instead of synthetic peers")
	peers := flag.Int("peers", 1000, "synthetic peers")
	hosts := flag.Int("hosts", 50, "hosts the synthetic peers are spread over")
	latency := flag.Duration("latency", 50*time.Millisecond, "added latency of every answer")
	traces := flag.Int("traces", 1, "traces each synthetic peer publishes")
	flag.Parse()
	if *node == "" {
		log.Fatal("meshsim: -node is required")
	}
	var agents []roster.Agent
	if *corpus != "" {
		agents = serveCorpus(*corpus, *latency)
	} else {
		agents = serveSynthetic(*peers, *hosts, *traces, *latency)
	}
	if err := writeNode(*node, agents); err != nil {
		log.Fatal(err)
	}
	fmt.Println("ready")
	select {}
}

func serveCorpus(dir string, latency time.Duration) []roster.Agent {
	fsrv := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		fsrv.ServeHTTP(w, r)
	}))
	data, err := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if err != nil {
		log.Fatal(err)
	}
	listed, _ := roster.Parse(data)
	var out []roster.Agent
	for _, a := range listed {
		out = append(out, roster.Agent{Name: a.Name, URL: srv.URL + "/agents-hosted/" + a.Name + "/", Joined: a.Joined})
	}
	return out
}

func writeNode(dir string, agents []roster.Agent) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg := "agent: bench\nurl: http://127.0.0.1:1/bench/\nallow_private_addresses: true\ngossip:\n  enabled: false\n"
	if err := os.WriteFile(filepath.Join(dir, "mesh.yaml"), []byte(cfg), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "FOUNDERS.md"), []byte("bench | http://127.0.0.1:1/bench/\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "AGENTS.md"), roster.Format(agents), 0o644)
}
