package node_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/statefile"
)

const peerTrace = `# Retry budgets that held

**Type:** knowledge
**Category:** rock

## Work

We capped retries per host at three with jittered backoff (250 ms, 1 s,
4 s) and measured 1,200 polls over a week: 0 storms, p99 latency 410 ms.

## Evidence

` + "```" + `
$ curl -sS -o /dev/null -w '%{http_code}' https://peer.example/MANIFEST.md
200
` + "```" + `

## Connections

Builds on the politeness rules; cites nothing else yet.
`

const ownTrace = `# Our first trace

**Type:** knowledge

## Work

A note on what this node does, long enough to be a trace of its own.
`

// TestOneHeartbeatReadsEachNodeFileOnce runs a whole heartbeat (poll,
// score, publish, save) and counts the node files it reads: our
// MANIFEST.md, FOUNDERS.md, the ledger, the cursors and each of our files
// once, in node.Open. To be sure nothing reads them behind the snapshot's
// back, the test then overwrites them on disk with garbage as soon as the
// snapshot is open: a second read would fail the heartbeat.
func TestOneHeartbeatReadsEachNodeFileOnce(t *testing.T) {
	peer := servePeer(t)
	dir := newNode(t, peer)
	reads := countReads(t, nil, func(s *node.Snapshot) { spoil(t, s.Dir) })

	sum := beat(t, dir)
	if sum.Verified != 1 || sum.ValidationsPublished != 1 {
		t.Fatalf("heartbeat verified %d and published %d validations, want 1 and 1", sum.Verified, sum.ValidationsPublished)
	}
	for _, rel := range []string{node.ManifestFile, node.FoundersFile, node.LedgerFile, node.CursorsFile, "traces/first.md"} {
		if reads[rel] != 1 {
			t.Errorf("%s read %d times, want once", rel, reads[rel])
		}
	}
	for rel, n := range reads {
		if n > 1 {
			t.Errorf("%s read %d times, want at most once", rel, n)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, node.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := manifest.Parse(data)
	if err != nil || len(m.Entries) != 2 {
		t.Fatalf("MANIFEST.md after the heartbeat: %v, %d rows; want our trace and the new validation", err, len(m.Entries))
	}
}

// countReads counts the node files every snapshot reads, by slash path,
// until the test ends; before (when not nil) is told each file just
// before it is read, and opened each snapshot once it is open.
func countReads(t *testing.T, before func(rel string), opened func(*node.Snapshot)) map[string]int {
	var mu sync.Mutex
	reads := map[string]int{}
	t.Cleanup(node.SetHooks(func(rel string) {
		mu.Lock()
		defer mu.Unlock()
		reads[rel]++
		if before != nil {
			before(rel)
		}
	}, opened))
	return reads
}

// spoil overwrites what node.Open read with bytes that do not parse, keeping
// the queue, which is read per batch by design (internal/queue).
func spoil(t *testing.T, dir string) {
	t.Helper()
	garbage := []byte("{not json, not markdown\x00")
	for _, f := range spoiled(t, dir) {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), garbage, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// spoiled lists the files spoil overwrites: MANIFEST.md, FOUNDERS.md, our
// trace and validations, and every file of the ledger and the cursors.
func spoiled(t *testing.T, dir string) []string {
	t.Helper()
	files := []string{node.ManifestFile, node.FoundersFile, "traces/first.md"}
	for _, d := range []string{statefile.Dir(node.LedgerFile), statefile.Dir(node.CursorsFile), node.ValidationsDir} {
		entries, _ := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		for _, e := range entries {
			files = append(files, d+"/"+e.Name())
		}
	}
	return files
}

var now = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

// servePeer serves one agent with one trace.
func servePeer(t *testing.T) string {
	t.Helper()
	hash := manifest.HashBytes([]byte(peerTrace))
	man := fmt.Sprintf("# MANIFEST\n\nagent: ada\nurl: %%s\nupdated: 2026-03-14T10:00:00Z\nsequence: 1\n\n"+
		"| seq | hash | file | type | status | submitted |\n|---|---|---|---|---|---|\n"+
		"| 1 | %s | traces/retry.md | knowledge | pending | 2026-03-14T10:00:00Z |\n", hash)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL + "/ada/"
	mux.HandleFunc("/ada/MANIFEST.md", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, man, base) })
	mux.HandleFunc("/ada/traces/retry.md", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, peerTrace) })
	return base
}

// newNode is a founder node that polls peer and has published one trace
// of its own, so it scores what it fetches.
func newNode(t *testing.T, peer string) string {
	t.Helper()
	dir := t.TempDir()
	self := "http://127.0.0.1:1/tester/"
	files := map[string]string{
		node.ConfigFile:   "agent: tester\nurl: " + self + "\nallow_private_addresses: true\n",
		node.AgentsFile:   "# name | trace_url | joined\nada | " + peer + " | 2026-02-01\n",
		node.FoundersFile: "tester | " + self + "\n",
		"traces/first.md": ownTrace,
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := publish.Publish(publish.Options{Dir: dir, Agent: "tester", URL: self, Now: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func beat(t *testing.T, dir string) *report.Summary {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := heartbeat.Run(context.Background(), heartbeat.Options{
		Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("heartbeat read a node file again after the snapshot: %v", err)
	}
	if strings.Contains(fmt.Sprint(sum.Held), "first.md") {
		t.Fatalf("our trace was held back: %v", sum.Held)
	}
	return sum
}
