// Command meshsim serves a simulated mesh on loopback for the heartbeat
// benchmarks in bench/heartbeat.sh, and writes a node directory whose
// AGENTS.md points at it. It serves until it is killed.
//
//	meshsim -node DIR -corpus ../shared/corpus/mycel-basecamp
//	meshsim -node DIR -peers 1000 -hosts 50 -latency 50ms -traces 20
//	meshsim -node DIR -corpus ../shared/corpus/mycel-basecamp -latency 50ms -tls -cert CERT.pem
//
// Synthetic peers each publish -traces pending traces of about 3 kB,
// distinct in wording; a GET of the printed publish URL adds one more to
// the first peer, one of /_meshsim/day on that host one more to every
// peer (bench/commitcost.sh), a GET of /_meshsim/conns on that host answers how
// many TCP connections all its servers accepted so far, and one of
// /_meshsim/inflight the most requests they answered at once since the
// last such GET. The node is a founder (FOUNDERS.md), so it scores.
//
// With -tls it serves HTTPS with a self-signed certificate written to
// -cert, speaking HTTP/2 unless -http1; the node trusts it only when run
// with SSL_CERT_FILE=CERT.pem (Go's crypto/x509 reads it on Linux).
package main

import (
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
)

func main() {
	node := flag.String("node", "", "node directory to create (mesh.yaml and AGENTS.md)")
	corpus := flag.String("corpus", "", "serve this real-mesh snapshot instead of synthetic peers")
	peers := flag.Int("peers", 1000, "synthetic peers")
	hosts := flag.Int("hosts", 50, "hosts the synthetic peers are spread over")
	latency := flag.Duration("latency", 50*time.Millisecond, "added latency of every answer")
	traces := flag.Int("traces", 1, "traces each synthetic peer publishes")
	flag.BoolVar(&srvTLS.on, "tls", false, "serve HTTPS (HTTP/2 unless -http1)")
	flag.BoolVar(&srvTLS.http1, "http1", false, "with -tls: HTTP/1.1 only")
	flag.StringVar(&srvTLS.cert, "cert", "", "with -tls: write the servers' certificate here (PEM)")
	flag.Parse()
	if *node == "" {
		log.Fatal("meshsim: -node is required")
	}
	if srvTLS.on && srvTLS.cert == "" {
		log.Fatal("meshsim: -tls needs -cert")
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

// srvTLS is how servers are started: plain HTTP, or TLS with or without
// HTTP/2.
var srvTLS struct {
	on, http1 bool
	cert      string
}

// conns counts the TCP connections every server accepted, for
// GET /_meshsim/conns (bench/catchup.sh).
var conns atomic.Int64

// inFlight counts the requests all servers are answering, and the most
// at once since GET /_meshsim/inflight last read (and reset) it.
var inFlight gauge

type gauge struct{ now, most atomic.Int64 }

// enter counts one request in until the returned function is called.
func (g *gauge) enter() func() {
	n := g.now.Add(1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	return func() { g.now.Add(-1) }
}

// serve starts h on loopback as the flags say. Every httptest TLS server
// uses the same built-in certificate, so writing it once is enough.
func serve(h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	if !srvTLS.on {
		srv.Start()
		return srv
	}
	srv.EnableHTTP2 = !srvTLS.http1
	srv.StartTLS()
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(srvTLS.cert, pemBytes, 0o644); err != nil {
		log.Fatal(err)
	}
	return srv
}

func serveCorpus(dir string, latency time.Duration) []roster.Agent {
	fsrv := http.FileServer(http.Dir(dir))
	srv := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		fsrv.ServeHTTP(w, r)
	}))
	data, err := os.ReadFile(filepath.Join(dir, node.AgentsFile))
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
	if err := os.WriteFile(filepath.Join(dir, node.ConfigFile), []byte(cfg), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, node.FoundersFile), []byte("bench | http://127.0.0.1:1/bench/\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, node.AgentsFile), roster.Format(agents), 0o644)
}
