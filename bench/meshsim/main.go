// Command meshsim serves a simulated mesh on loopback for the heartbeat
// benchmarks in bench/heartbeat.sh, and writes a node directory whose
// AGENTS.md points at it. It serves until it is killed.
//
//	meshsim -node DIR -corpus ../shared/corpus/mycel-basecamp
//	meshsim -node DIR -peers 1000 -hosts 50 -latency 50ms
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
)

func main() {
	node := flag.String("node", "", "node directory to create (mesh.yaml and AGENTS.md)")
	corpus := flag.String("corpus", "", "serve this real-mesh snapshot instead of synthetic peers")
	peers := flag.Int("peers", 1000, "synthetic peers")
	hosts := flag.Int("hosts", 50, "hosts the synthetic peers are spread over")
	latency := flag.Duration("latency", 50*time.Millisecond, "added latency of every answer")
	flag.Parse()
	if *node == "" {
		log.Fatal("meshsim: -node is required")
	}
	var agents []roster.Agent
	if *corpus != "" {
		agents = serveCorpus(*corpus, *latency)
	} else {
		agents = serveSynthetic(*peers, *hosts, *latency)
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

func serveSynthetic(peers, hosts int, latency time.Duration) []roster.Agent {
	trace := []byte("# One\n\n## Work\n\nSomething.\n")
	m := manifest.Manifest{Sequence: 1, Entries: []manifest.Entry{
		{Seq: 1, Hash: manifest.HashBytes(trace), File: "traces/001.md", Type: "knowledge", Status: "validated"},
	}}
	body := m.Format()
	const etag = `"v1"`
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		switch p := r.URL.Path; {
		case strings.HasSuffix(p, "/MANIFEST.md"):
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", etag)
			w.Write(body)
		case strings.HasSuffix(p, "/traces/001.md"):
			w.Write(trace)
		default:
			http.NotFound(w, r)
		}
	})
	var out []roster.Agent
	for i := 0; i < hosts; i++ {
		srv := httptest.NewServer(h)
		for j := i; j < peers; j += hosts {
			out = append(out, roster.Agent{Name: fmt.Sprintf("agent-%d", j), URL: fmt.Sprintf("%s/a%d/", srv.URL, j), Joined: "2026-02-01"})
		}
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
	return os.WriteFile(filepath.Join(dir, "AGENTS.md"), roster.Format(agents), 0o644)
}
