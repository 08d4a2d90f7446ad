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

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
)

// manifestBytes is limits.manifest_bytes' default: a hostile manifest
// fills it.
const manifestBytes = 4 << 20

func main() {
	node := flag.String("node", "", "node directory to create (mesh.yaml and AGENTS.md)")
	kind := flag.String("kind", "legacy", "legacy, liar, large, many, gossip, crowd, sybil or flood")
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
	gossip, founder := *kind == "gossip", *kind == "flood"
	if err := writeNode(*node, agents, gossip, founder); err != nil {
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
		m = many(name, files, 6000)
	case "flood":
		m = many(name, files, 6500)
	case "gossip":
		m = (&manifest.Manifest{Agent: name}).Format()
		files[roster.FileName] = gossipList(name)
	default:
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
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
	}), nil
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

func many(name string, files map[string][]byte, n int) []byte {
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

func writeNode(dir string, agents []roster.Agent, gossip, founder bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const name, url = "bench", "http://127.0.0.1:1/bench/"
	cfg := fmt.Sprintf("agent: %s\nurl: %s\nallow_private_addresses: true\ngossip:\n  enabled: %v\n", name, url, gossip)
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
