// Package demo runs the node's main job on an embedded sample mesh, with no
// setup and no network beyond loopback: it starts sample peers in-process
// on 127.0.0.1, creates a node in a directory, runs two heartbeats against
// them (the mesh moves on in between), signing the node's log with a key
// of the demo's own, and shows what happened and where the files are. Its peers carry the quirks of the real mesh: the
// real-world manifest variant, a sequence gap backfilled later, a tampered
// file, an agent that is down, and an agent known only by gossip.
//
// The sample peers live only as long as Run: no URL of theirs is offered
// to the person. The closing commands use Options.Command, which the CLI
// sets to how it was started (`go run ./cmd/meshnode` after go run), and
// `meshnode demo --serve` then serves the node's static site until Ctrl-C.
package demo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/atomicfile"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/translog"
)

// Options configure a demo run.
type Options struct {
	Dir    string    // the node's directory; created, must be empty or absent
	Stdout io.Writer // where the run and the tour are printed; nil discards them
	Logger *slog.Logger
	Now    func() time.Time // the first heartbeat's time; the second is 30 minutes later
	// Build, when set, builds the node's static site into DIR/_site after
	// the heartbeats (the CLI passes the site builder; tests may not).
	Build func(ctx context.Context, dir, out string) error
	// Command is how the person runs meshnode, for the commands the tour
	// prints: "meshnode", a path, or "go run ./cmd/meshnode". Default
	// "meshnode".
	Command string
	// Serving says the CLI will serve the site after the run, so the tour
	// does not point at the files only.
	Serving bool
}

// ErrDirNotEmpty: the demo makes its node in an empty or new directory
// only, so it never mixes with, or overwrites, files of someone's.
var ErrDirNotEmpty = errors.New("is not empty")

// Result is what a demo run produced, for tests.
type Result struct {
	Rounds []*report.Summary
	Dir    string
}

// Run runs the demo.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Dir == "" {
		return nil, errors.New("demo: no directory given for the node")
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	clock := o.Now
	if clock == nil {
		// The sample mesh lives in February 2026: run its heartbeats then,
		// so freshness scores mean something and every run is the same.
		start := time.Date(2026, 2, 12, 12, 0, 0, 0, time.UTC)
		clock = func() time.Time { return start }
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	nodeSrv := httptest.NewServer(http.FileServer(http.Dir(o.Dir)))
	defer nodeSrv.Close()
	nodeURL := nodeSrv.URL + "/"
	nodeTrace := readEmbedded("node/001-hello-mesh.md")
	m := newMesh(nodeURL, nodeTrace)
	hostA := httptest.NewServer(m)
	defer hostA.Close()
	hostB := httptest.NewServer(m)
	defer hostB.Close()
	for _, n := range []string{"ada", "bob"} {
		m.base[n] = hostA.URL + "/" + n + "/"
	}
	for _, n := range []string{"cyd", "eve"} {
		m.base[n] = hostB.URL + "/" + n + "/"
	}
	down, err := closedURL()
	if err != nil {
		return nil, err
	}
	skey, vkey, err := logKey(nodeURL)
	if err != nil {
		return nil, err
	}
	if err := writeNode(o.Dir, nodeURL, vkey, nodeTrace, m, down); err != nil {
		return nil, err
	}
	cfg, err := config.Load(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("demo config: %w", err)
	}
	res := &Result{Dir: o.Dir}
	w := o.Stdout
	// No URL of these servers is printed: they stop when the demo does.
	fmt.Fprintln(w, "Sample mesh on 127.0.0.1, for this run only: ada and bob share a host, cyd and eve another, dormant is down.")
	fmt.Fprintf(w, "Node %q in %s\n\n", cfg.Agent, o.Dir)
	for round := 1; round <= 2; round++ {
		if round == 2 {
			m.advance()
			fmt.Fprintln(w, "The mesh moves on: ada publishes a new trace, bob backfills the seq he had skipped.")
		}
		at := clock().Add(time.Duration(round-1) * 30 * time.Minute)
		sum, err := heartbeat.Run(ctx, heartbeat.Options{Dir: o.Dir, Config: cfg, Now: func() time.Time { return at }, Logger: o.Logger, Version: "demo", LogKey: skey})
		if err != nil {
			return nil, fmt.Errorf("heartbeat %d: %w", round, err)
		}
		res.Rounds = append(res.Rounds, sum)
		fmt.Fprintf(w, "Heartbeat %d:\n", round)
		sum.WriteText(indent(w))
		fmt.Fprintln(w)
	}
	if err := verdicts(w, o.Dir, m); err != nil {
		return nil, err
	}
	if o.Build != nil {
		if err := o.Build(ctx, o.Dir, filepath.Join(o.Dir, "_site")); err != nil {
			return nil, fmt.Errorf("build site: %w", err)
		}
	}
	tour(w, o, clock().Add(30*time.Minute))
	return res, nil
}

// logKey makes the demo node's log key, named for nodeURL as init names a
// node's (translog.Origin). It is the demo's own, from a fixed seed, so
// that two runs sign alike but for the port in its name; held in memory
// and given to each heartbeat as the CLI gives --log-key, never written
// (a node's key lives outside it), it signs nothing but the demo's
// temporary node.
func logKey(nodeURL string) (skey, vkey string, err error) {
	origin, err := translog.Origin(nodeURL)
	if err != nil {
		return "", "", fmt.Errorf("demo log key: %w", err)
	}
	seed := sha256.Sum256([]byte("meshnode demo: the sample node's log key"))
	return translog.GenerateKeyFrom(bytes.NewReader(seed[:]), origin)
}

// writeNode creates the demo node: config, identity (publishing vkey, its
// log's key), peers and one trace.
func writeNode(dir, nodeURL, vkey string, nodeTrace []byte, m *mesh, down string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("demo directory %s: %w", dir, ErrDirNotEmpty)
	}
	files := map[string][]byte{
		node.ConfigFile: []byte(fmt.Sprintf(`# The demo node: peers are on 127.0.0.1, so private addresses are allowed,
# to the peers ada gossips too.
agent: demo-node
url: %s
allow_private_addresses: true
gossip:
  allow_private_addresses: true
`, nodeURL)),
		// The demo node and cyd found the sample mesh: the node validates
		// from the first heartbeat, and cyd's verdict on the node's trace
		// counts.
		node.FoundersFile: signal.FormatFounders(signal.NewMeshRules, []signal.Founder{{Name: "demo-node", URL: nodeURL}, {Name: "cyd", URL: m.base["cyd"]}}),
		node.IdentityFile: []byte("# IDENTITY\n\nname: demo-node\njoined: 2026-02-01\nmodel: meshnode demo\nhuman: you\nrole: shows what a node does\n" + translog.IdentityKey + ": " + vkey + "\n"),
		node.AgentsFile: []byte(fmt.Sprintf("# Known Agents\n# name | trace_url | joined\nada | %s | 2026-02-01\nbob | %s | 2026-02-03\ncyd | %s | 2026-02-02\ndormant | %s | 2026-02-04\n",
			m.base["ada"], m.base["bob"], m.base["cyd"], down)),
		"traces/001-hello-mesh.md": nodeTrace,
	}
	for name, data := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// closedURL returns a loopback URL where nothing listens: the agent that
// is down.
func closedURL() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/dormant/", nil
}
