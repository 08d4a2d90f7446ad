package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
)

// FuzzHeartbeatValidatesOnlyVerifiedPeerTraces serves fuzzed bytes as a
// peer's MANIFEST.md beside one real trace, and runs a founding node's
// heartbeat on it. Whatever the MANIFEST says, the heartbeat must not fail
// (a peer's garbage is the peer's failure), and every validation it
// publishes must be of bytes the peer really served.
func FuzzHeartbeatValidatesOnlyVerifiedPeerTraces(f *testing.F) {
	trace := readTestdata(f, "traces/ada/001-retry-ladder.md")
	served := map[string]string{"traces/001-retry-ladder.md": trace}
	good := &manifest.Manifest{Agent: "ada", Sequence: 1, Entries: []manifest.Entry{
		{Seq: 1, Hash: hashOf(trace), File: "traces/001-retry-ladder.md", Type: "knowledge", Status: "pending"},
	}}
	f.Add(good.Format())
	f.Add([]byte(strings.Replace(string(good.Format()), hashOf(trace).Hex(8), "00000000", 1)))
	f.Add([]byte("# Manifest — ada\n\n| seq | hash | file |\n|---|---|---|\n| 1 | " + hashOf(trace) + " | ../traces/001-retry-ladder.md |\n"))
	f.Add([]byte("sequence: 999999999\n"))
	if dir, ok := corpustest.Find(); ok {
		addCorpusManifests(f, dir, 4)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := strings.TrimPrefix(r.URL.Path, "/")
			if p == "MANIFEST.md" {
				w.Write(body)
				return
			}
			if s, ok := served[p]; ok {
				w.Write([]byte(s))
				return
			}
			http.NotFound(w, r)
		}))
		defer peer.Close()
		m := newMesh(t, "bob")
		m.configure("bob", founding+"heartbeat:\n  request_timeout: 2s\n")
		bob := m.node("bob")
		writeFile(t, bob.dir, "AGENTS.md", "# name | trace_url | joined\nada | "+peer.URL+"/ | 2026-02-01\n")

		beatAt(t, bob.dir, start)

		for hash := range readValidations(t, bob.dir) {
			if hash != hashOf(trace) {
				t.Errorf("validated %s, which is not the hash of any file the peer served", hash)
			}
		}
	})
}

// addCorpusManifests seeds the fuzzer with up to n real MANIFEST.md files.
func addCorpusManifests(f *testing.F, dir string, n int) {
	paths, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "MANIFEST.md"))
	for i, p := range paths {
		if i == n {
			break
		}
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}
