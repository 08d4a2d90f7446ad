package main

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

var updateConformance = flag.Bool("update", false, "rewrite the expected outputs of the conformance vectors")

// conformanceDir holds the conformance vectors (conformance/README.md).
const conformanceDir = "../../conformance"

// logVectorsDir holds the signed-log vectors, which are not meshes to
// poll: internal/translog's TestLogVectorsVerifyWithXMod checks them.
const logVectorsDir = "logs"

// relayVectorsDir holds the relay vectors, checked by internal/relay.
const relayVectorsDir = "relay"

// conformanceNow is the fixed time every vector is judged at.
var conformanceNow = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)

// The placeholders of conformance/README.md: the base URL the public files
// are served at, and the sha256 of FOUNDERS.md once the base is put in.
const (
	meshPlaceholder     = "{{mesh}}"
	foundersPlaceholder = "sha256:{{founders}}"
)

// TestConformanceVectors runs every case of conformance/ as another
// implementation would (conformance/README.md) and compares `signal
// --json` and `peers --json` with the expected files byte for byte.
func TestConformanceVectors(t *testing.T) {
	entries, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == logVectorsDir || e.Name() == relayVectorsDir {
			continue // the log and relay vectors are checked by internal/translog and internal/relay
		}
		cases++
		t.Run(e.Name(), func(t *testing.T) { runConformanceCase(t, filepath.Join(conformanceDir, e.Name())) })
	}
	if cases == 0 {
		t.Fatal("no conformance cases")
	}
}

// TestConformanceCasesAreListed checks that conformance/README.md's tables
// name every case, so that another implementation reading them learns of
// each rule a case probes.
func TestConformanceCasesAreListed(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(conformanceDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != logVectorsDir && e.Name() != relayVectorsDir && !bytes.Contains(readme, []byte("| `"+e.Name()+"` |")) {
			t.Errorf("conformance/README.md lists no case %s", e.Name())
		}
	}
}

func runConformanceCase(t *testing.T, dir string) {
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("case without a README: %v", err)
	}
	if *updateConformance {
		writeConformanceLogs(t, dir)
	}
	staged := isDir(filepath.Join(dir, "later")) || isDir(filepath.Join(dir, caseRelaysDir))
	var second atomic.Bool
	srv, relays := newConformanceServer(t, dir, &second)
	t.Cleanup(srv.Close)
	node, founders := conformanceNode(t, dir, srv.URL)
	appendFile(t, filepath.Join(node, "mesh.yaml"), relaysConfig(relays))
	now := conformanceNow.Format(time.RFC3339)
	if staged {
		cliT(t, "heartbeat", "--dir", node, "--now", conformanceNow.Add(-time.Hour).Format(time.RFC3339))
		second.Store(true)
	}
	summary := filepath.Join(t.TempDir(), "summary.json")
	cliT(t, "heartbeat", "--dir", node, "--now", now, "--summary", summary)
	if len(relays) > 0 {
		got := strings.ReplaceAll(relaysSummary(t, summary), srv.URL, meshPlaceholder)
		compareConformance(t, filepath.Join(dir, "expected", "relays.json"), got)
	}
	for _, cmd := range []string{"signal", "peers"} {
		if cmd == "signal" && refusesRules(t, dir, node, now) {
			continue
		}
		got := cliT(t, cmd, "--dir", node, "--now", now, "--json")
		got = strings.ReplaceAll(got, srv.URL, meshPlaceholder)
		if founders != "" {
			got = strings.ReplaceAll(got, founders, foundersPlaceholder)
		}
		compareConformance(t, filepath.Join(dir, "expected", cmd+".json"), got)
	}
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// conformanceFiles serves a case's public/ files, and its later/ files
// over them once second is set, and the logs of its relays rs. Files are served whole, without
// Last-Modified: a vector must not depend on the mtimes of a checkout.
// An agent's AGENTS.md is served with {{mesh}} replaced by the base URL,
// so that what it gossips names agents the case serves; it is listed in
// no MANIFEST, so no hash changes.
func conformanceFiles(dir string, second *atomic.Bool, rs []*caseRelay) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if data, ok := relayFile(rs, strings.TrimPrefix(path.Clean(r.URL.Path), "/"), second.Load()); ok {
			w.Write(data)
			return
		}
		rel := filepath.FromSlash(strings.TrimPrefix(path.Clean(r.URL.Path), "/"))
		data, err := os.ReadFile(filepath.Join(dir, "later", rel))
		if !second.Load() || err != nil {
			data, err = os.ReadFile(filepath.Join(dir, "public", rel))
		}
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if path.Base(r.URL.Path) == "AGENTS.md" {
			data = bytes.ReplaceAll(data, []byte(meshPlaceholder), []byte("http://"+r.Host))
		}
		w.Write(data)
	})
}

// conformanceGossip lets the observing node poll the agents it learns by
// gossip at the case's base URL, a loopback address like the agents of
// its AGENTS.md (conformance/README.md, "Running a case", step 2).
const conformanceGossip = "gossip:\n  allow_private_addresses: true\n"

// conformanceNode makes the observing node of a case whose files are
// served at base, and returns its directory and the hash of its
// FOUNDERS.md ("" without one).
func conformanceNode(t *testing.T, dir, base string) (node, founders string) {
	t.Helper()
	node = filepath.Join(t.TempDir(), "observer")
	cliT(t, "init", "--dir", node, "--agent", "observer", "--url", base+"/observer/")
	appendFile(t, filepath.Join(node, "mesh.yaml"), conformanceGossip)
	for _, name := range []string{"AGENTS.md", "FOUNDERS.md"} {
		data, err := os.ReadFile(filepath.Join(dir, "node", name))
		if os.IsNotExist(err) && name == "FOUNDERS.md" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.ReplaceAll(data, []byte(meshPlaceholder), []byte(base))
		if name == "FOUNDERS.md" {
			founders = string(manifest.HashBytes(data))
		}
		if err := os.WriteFile(filepath.Join(node, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return node, founders
}

// appendFile adds text at the end of the file at name.
func appendFile(t *testing.T, name, text string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// refusedRules is the file of a case whose FOUNDERS.md names a rule set
// an implementation must refuse to compute with: it holds that rule
// set's name, in place of expected/signal.json (conformance/README.md).
const refusedRules = "signal.refused"

// refusesRules checks, for a case with expected/signal.refused, that
// `signal --json` computes nothing: exit 2, no output, and a message
// naming the rule set. It reports whether the case has the file.
func refusesRules(t *testing.T, dir, node, now string) bool {
	t.Helper()
	want, err := os.ReadFile(filepath.Join(dir, "expected", refusedRules))
	if os.IsNotExist(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSpace(string(want))
	code, stdout, stderr := runSetupCLI(t, "signal", "--dir", node, "--now", now, "--json")
	if code != exitUsage || stdout != "" || name == "" || !strings.Contains(stderr, `"`+name+`"`) {
		t.Errorf("signal --json under rule set %q: exit %d, want %d with nothing on stdout and the rule set named\nstdout:\n%s\nstderr:\n%s", name, code, exitUsage, stdout, stderr)
	}
	return true
}

func compareConformance(t *testing.T, path, got string) {
	t.Helper()
	if *updateConformance {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestConformanceVectors -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs; run go test -run TestConformanceVectors -update and review the diff\ngot:\n%s", path, got)
	}
}
