package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/signingkey"
	"github.com/meshnode/meshnode/internal/statefile"
)

// start is the clock of the first heartbeat of every test mesh.
var start = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

// heartbeatEvery is docs/protocol.md §1's interval: every test heartbeat moves the
// clock on by it.
const heartbeatEvery = 30 * time.Minute

// testNode is one node of a test mesh: a directory served on loopback.
type testNode struct {
	name string
	dir  string
	url  string // the server's URL + "/", as mesh.yaml and peers know it
	srv  *httptest.Server
}

// testMesh is a few nodes that know each other, on one clock.
type testMesh struct {
	t        testing.TB
	nodes    []*testNode
	now      time.Time
	founders []signal.Founder // what every node's FOUNDERS.md names
	// rules is the rule set every node's FOUNDERS.md names; today's
	// rules (signal.RulesMesh2026v1) unless a test sets another.
	rules string
}

// newMesh starts a server for each named node. Servers come first, so that
// every mesh.yaml and AGENTS.md can name real URLs.
func newMesh(t testing.TB, names ...string) *testMesh {
	t.Helper()
	m := &testMesh{t: t, now: start, rules: signal.RulesMesh2026v1}
	for _, name := range names {
		dir := t.TempDir()
		srv := httptest.NewServer(serveNode(dir))
		t.Cleanup(srv.Close)
		m.nodes = append(m.nodes, &testNode{name: name, dir: dir, url: srv.URL + "/", srv: srv})
	}
	return m
}

// serveNode serves a node's directory byte for byte, as a static host
// would, with an ETag of the content: http.FileServer alone answers
// conditional requests by modification time at one-second resolution,
// which would hide a MANIFEST rewritten within the second of the last poll.
func serveNode(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/")))
		if data, err := os.ReadFile(p); err == nil {
			sum := sha256.Sum256(data)
			w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		}
		files.ServeHTTP(w, r)
	})
}

func (m *testMesh) node(name string) *testNode {
	for _, n := range m.nodes {
		if n.name == name {
			return n
		}
	}
	m.t.Fatalf("no node %q in the mesh", name)
	return nil
}

// configure writes the node's mesh.yaml (extra is appended YAML) and an
// AGENTS.md listing every other node of the mesh. An extra holding
// founding makes the node a founder: it joins the founders that every
// node's FOUNDERS.md names, the same bytes on every node.
func (m *testMesh) configure(name, extra string) {
	m.t.Helper()
	n := m.node(name)
	cfg := fmt.Sprintf("agent: %s\nurl: %s\nallow_private_addresses: true\n%s", n.name, n.url, extra)
	writeFile(m.t, n.dir, node.ConfigFile, cfg)
	if strings.Contains(extra, founding) {
		m.founders = append(m.founders, signal.Founder{Name: n.name, URL: n.url})
		for _, o := range m.nodes {
			writeFile(m.t, o.dir, node.FoundersFile, string(signal.FormatFounders(m.rules, m.founders)))
		}
	}
	var agents strings.Builder
	agents.WriteString("# name | trace_url | joined\n")
	for _, o := range m.nodes {
		if o != n {
			fmt.Fprintf(&agents, "%s | %s | 2026-02-01\n", o.name, o.url)
		}
	}
	writeFile(m.t, n.dir, node.AgentsFile, agents.String())
}

// Standing of test nodes: a founder validates from the first heartbeat;
// any other node waits until its SIGNAL reaches 50.
const (
	founding = "# a founder of the mesh (FOUNDERS.md)\n"
	gated    = ""
)

// addTraces copies testdata/traces/<from>/<file> into the node's traces/.
func (n *testNode) addTraces(t testing.TB, from string, files ...string) {
	t.Helper()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", "traces", from, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, n.dir, "traces/"+f, string(data))
	}
}

// beat runs one heartbeat of the named node at the mesh's clock.
func (m *testMesh) beat(name string) *report.Summary {
	m.t.Helper()
	return beatAt(m.t, m.node(name).dir, m.now)
}

// round runs one heartbeat of every node, in mesh order, at the same time,
// then moves the clock on by one heartbeat interval.
func (m *testMesh) round() {
	m.t.Helper()
	for _, n := range m.nodes {
		m.beat(n.name)
	}
	m.now = m.now.Add(heartbeatEvery)
}

// settle runs rounds until one leaves what the mesh knows unchanged, and
// fails the test if that takes more than max rounds. What the mesh knows is
// every node's MANIFEST rows, ledger and validations; the MANIFEST's
// updated time is left out, since presence refreshes it every few
// heartbeats whatever else happens.
func (m *testMesh) settle(max int) {
	m.t.Helper()
	before := m.knowledge()
	for i := 0; i < max; i++ {
		m.round()
		after := m.knowledge()
		if after == before {
			return
		}
		before = after
	}
	m.t.Fatalf("the mesh still changes after %d rounds", max)
}

func (m *testMesh) knowledge() string {
	m.t.Helper()
	var b strings.Builder
	for _, n := range m.nodes {
		fmt.Fprintf(&b, "== %s\n", n.name)
		if mf, err := os.ReadFile(filepath.Join(n.dir, node.ManifestFile)); err == nil {
			parsed, _, err := manifest.Parse(mf)
			if err != nil {
				m.t.Fatalf("%s: MANIFEST.md: %v", n.name, err)
			}
			parsed.Updated = time.Time{}
			b.Write(parsed.Format())
		}
		snap := snapshot(m.t, n.dir)
		for _, f := range sortedKeys(snap) {
			if strings.HasPrefix(f, node.ValidationsDir+"/") || strings.HasPrefix(f, statefile.Dir(node.LedgerFile)+"/") {
				fmt.Fprintf(&b, "%s %s\n", f, snap[f])
			}
		}
	}
	return b.String()
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// beatAt runs one heartbeat of the node in dir at now, logging nowhere,
// and fails the test on a local error.
func beatAt(t testing.TB, dir string, now time.Time) *report.Summary {
	t.Helper()
	sum, err := runHeartbeat(dir, now)
	if err != nil {
		t.Fatalf("heartbeat of %s at %s: %v", filepath.Base(dir), now.Format(time.RFC3339), err)
	}
	return sum
}

// runHeartbeat runs one heartbeat of the node in dir, signing its log
// with the key beside it (DIR.log-key, signingkey.DefaultPath) when the
// test gave it one.
func runHeartbeat(dir string, now time.Time) (*report.Summary, error) {
	cfg, err := config.Load(dir)
	if err != nil {
		return nil, err
	}
	key, err := signingkey.Find("", dir)
	if err != nil {
		return nil, err
	}
	return heartbeat.Run(context.Background(), heartbeat.Options{
		Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		LogKey: key,
	})
}

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readManifest(t testing.TB, dir string) *manifest.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, node.ManifestFile))
	if err != nil {
		t.Fatalf("read MANIFEST.md: %v", err)
	}
	m, problems, err := manifest.Parse(data)
	if err != nil || len(problems) > 0 {
		t.Fatalf("MANIFEST.md does not parse cleanly: %v %v", err, problems)
	}
	return m
}

// snapshot maps every file of a node (slash path → sha256 hex), except the
// heartbeat's lock file, whose existence is not content.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == node.LockFile {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", dir, err)
	}
	return out
}

// diffSnapshots lists the files that differ between want and got, sorted.
func diffSnapshots(want, got map[string]string) []string {
	var out []string
	for f, h := range want {
		switch g, ok := got[f]; {
		case !ok:
			out = append(out, "missing "+f)
		case g != h:
			out = append(out, "differs "+f)
		}
	}
	for f := range got {
		if _, ok := want[f]; !ok {
			out = append(out, "extra "+f)
		}
	}
	sort.Strings(out)
	return out
}
