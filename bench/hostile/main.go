// Command hostile serves hostile peers on loopback for bench/hostile.sh,
// and writes a node directory whose AGENTS.md lists them, so the script
// can measure what they cost a real `meshnode heartbeat` process. It
// serves until it is killed.
//
//	hostile -node DIR -kind legacy -peers 20
//
// Kinds (docs/security.md, "Measured bounds"):
//
//	legacy   manifests filled to limits.manifest_bytes with rows without a file column
//	liar     5,000 files whose bytes do not match their manifest hash
//	large    200 files of 1 MiB each (limits.trace_bytes), every one distinct
//	many     6,000 small traces behind a manifest that never changes
//	gossip   an AGENTS.md listing 3,000 agents
//	crowd    40 files of 1 MiB each, every one distinct: run with -peers 8,
//	         peers that each fit their own budget but not the heartbeat's
//	sybil    1,000 rows without a file column: run with -peers 100, what
//	         gossip lets one peer add (100 peers)
//	headers  every answer carries about 9.5 MB of headers: run with -peers 64
//	drip     60 files that drip a byte every 2 s, beside a good peer with 3
//	         traces; the node has standing and a 60 s heartbeat.deadline
//	flood    6,500 tiny pending traces, and the node a founder with the
//	         heuristic scorer: run with -peers 4, peers that would have it
//	         publish a validation of each
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
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
)

// manifestBytes is limits.manifest_bytes' default: a hostile manifest
// fills it.
const manifestBytes = 4 << 20

func main() {
	node := flag.String("node", "", "node directory to create (mesh.yaml and AGENTS.md)")
	kind := flag.String("kind", "legacy", "legacy, liar, large, many, gossip, crowd, sybil, headers, drip or flood")
	peers := flag.Int("peers", 1, "hostile peers of that kind")
	flag.Parse()
	if *node == "" {
		log.Fatal("hostile: -node is required")
	}
	var agents []roster.Agent
	for i := range *peers {
		name := fmt.Sprintf("%s%d", *kind, i)
		h, err := handler(*kind, name)
		if err != nil {
			log.Fatal(err)
		}
		srv := httptest.NewServer(h)
		agents = append(agents, roster.Agent{Name: name, URL: srv.URL + "/" + name + "/", Joined: "2026-02-01"})
	}
	extra := ""
	if *kind == "drip" {
		agents = append(agents, goodAgent())
		extra = "heartbeat:\n  deadline: 60s\n"
	}
	founder := *kind == "drip" || *kind == "flood"
	if err := writeNode(*node, agents, *kind == "gossip", founder, extra); err != nil {
		log.Fatal(err)
	}
	fmt.Println("ready")
	select {}
}

// handler returns the server of one hostile peer named name, serving under
// /name/.
func handler(kind, name string) (http.Handler, error) {
	files := map[string][]byte{}
	var m []byte
	switch kind {
	case "legacy":
		m = legacy(name, manifestBytes)
	case "sybil":
		m = legacy(name, 110<<10) // 1,000 rows
	case "crowd":
		m = large(name, 40, files)
	case "liar":
		m = liar(name, files)
	case "large":
		m = large(name, 200, files)
	case "many":
		m = many(name, 6000, files)
	case "headers":
		m = many(name, 3, files)
	case "drip":
		m = many(name, 60, files)
	case "flood":
		m = many(name, 6500, files)
	case "gossip":
		m = (&manifest.Manifest{Agent: name}).Format()
		files[roster.FileName] = gossipList(name)
	default:
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
	h := serveFiles(name, files, m)
	switch kind {
	case "headers":
		return padHeaders(h, 9_500_000), nil
	case "drip":
		return dripFiles(h, "/"+name+"/"+manifest.FileName, 2*time.Second), nil
	}
	return h, nil
}

// serveFiles serves files and the manifest m under /name/, answering 304
// to a manifest request that names its ETag.
func serveFiles(name string, files map[string][]byte, m []byte) http.Handler {
	files[manifest.FileName] = m
	etag := `"` + manifest.HashBytes(m).Hex(16) + `"`
	prefix := "/" + name + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[strings.TrimPrefix(r.URL.Path, prefix)]
		switch {
		case !ok || !strings.HasPrefix(r.URL.Path, prefix):
			http.NotFound(w, r)
		case r.URL.Path == prefix+manifest.FileName && r.Header.Get("If-None-Match") == etag:
			w.WriteHeader(http.StatusNotModified)
		default:
			w.Header().Set("ETag", etag)
			w.Write(body)
		}
	})
}

// padHeaders adds about n bytes of headers, in 8 KiB values, to every
// answer of h.
func padHeaders(h http.Handler, n int) http.Handler {
	v := strings.Repeat("x", 8<<10)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i*len(v) < n; i++ {
			w.Header().Add(fmt.Sprintf("X-Pad-%d", i), v)
		}
		h.ServeHTTP(w, r)
	})
}

// dripFiles answers every request of h but the manifest's a byte every
// interval, until the client hangs up.
func dripFiles(h http.Handler, manifestPath string, every time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == manifestPath {
			h.ServeHTTP(w, r)
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	})
}

// goodAgent serves an honest peer with 3 traces, for the node to score.
func goodAgent() roster.Agent {
	files := map[string][]byte{}
	m := many("good", 3, files)
	srv := httptest.NewServer(serveFiles("good", files, m))
	return roster.Agent{Name: "good", URL: srv.URL + "/good/", Joined: "2026-02-01"}
}

// legacy fills a manifest of at most max bytes with rows without a file
// column.
func legacy(name string, max int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Manifest — %s\n\n| Trace | Date | Type | Category | Hash | Status |\n|---|---|---|---|---|---|\n", name)
	for seq := 1; ; seq++ {
		row := fmt.Sprintf("| %03d | 2026-01-30 | knowledge | rock | %s | pending |\n", seq, manifest.HashBytes([]byte(name+fmt.Sprint(seq))))
		if b.Len()+len(row) > max {
			return []byte(b.String())
		}
		b.WriteString(row)
	}
}

func liar(name string, files map[string][]byte) []byte {
	m := manifest.Manifest{Agent: name, Sequence: 5000}
	for seq := 1; seq <= 5000; seq++ {
		file := fmt.Sprintf("traces/%04d.md", seq)
		files[file] = []byte(fmt.Sprintf("# Served %d\n", seq))
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes([]byte(fmt.Sprint("claimed", seq))), File: file, Type: "knowledge", Status: "pending"})
	}
	return m.Format()
}

// large serves n distinct files of 1 MiB (limits.trace_bytes).
func large(name string, n int, files map[string][]byte) []byte {
	const size = 1 << 20
	m := manifest.Manifest{Agent: name, Sequence: manifest.Seq(n)}
	for seq := 1; seq <= n; seq++ {
		file := fmt.Sprintf("traces/%03d.md", seq)
		body := []byte(fmt.Sprintf("# Large %d\n\n## Work\n\n", seq))
		line := []byte(fmt.Sprintf("Line of file %d, padded to fill the trace size limit.\n", seq))
		for len(body)+len(line) <= size {
			body = append(body, line...)
		}
		files[file] = body
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(body), File: file, Type: "knowledge", Status: "pending"})
	}
	return m.Format()
}

// many serves n small traces.
func many(name string, n int, files map[string][]byte) []byte {
	m := manifest.Manifest{Agent: name, Sequence: manifest.Seq(n)}
	for seq := 1; seq <= n; seq++ {
		file := fmt.Sprintf("traces/%04d.md", seq)
		files[file] = []byte(fmt.Sprintf("# Trace %d of %s\n\n## Work\n\nDone %d.\n", seq, name, seq))
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(files[file]), File: file, Type: "knowledge", Status: "pending"})
	}
	return m.Format()
}

func gossipList(name string) []byte {
	var agents []roster.Agent
	for i := range 3000 {
		agents = append(agents, roster.Agent{Name: fmt.Sprintf("%s-bot%04d", name, i), URL: fmt.Sprintf("http://127.0.0.1:1/%s/bot%04d/", name, i), Joined: "2026-02-01"})
	}
	return roster.Format(agents)
}

// writeNode writes the node's mesh.yaml, with extra lines, and its
// AGENTS.md; for a founder (drip, flood), also a FOUNDERS.md naming the
// node, so that it scores from the first heartbeat.
func writeNode(dir string, agents []roster.Agent, gossip, founder bool, extra string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const name, url = "bench", "http://127.0.0.1:1/bench/"
	cfg := fmt.Sprintf("agent: %s\nurl: %s\nallow_private_addresses: true\ngossip:\n  enabled: %v\n%s", name, url, gossip, extra)
	if err := os.WriteFile(filepath.Join(dir, node.ConfigFile), []byte(cfg), 0o644); err != nil {
		return err
	}
	if founder {
		if err := os.WriteFile(filepath.Join(dir, node.FoundersFile), []byte(name+" | "+url+"\n"), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, node.AgentsFile), roster.Format(agents), 0o644)
}
