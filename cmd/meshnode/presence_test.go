package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/roster"
)

// snapshotNow is the day after the snapshot was taken (issue 19.6).
const snapshotNow = "2026-03-15T00:00:00Z"

// caughtUpWithSnapshot serves the real snapshot on 127.0.0.1, makes a node
// that polls its 15 agents and bridge, and runs one heartbeat at
// snapshotNow.
func caughtUpWithSnapshot(t *testing.T) string {
	t.Helper()
	corpus := corpustest.Dir(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(corpus)))
	t.Cleanup(srv.Close)
	data, err := os.ReadFile(filepath.Join(corpus, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := roster.Parse(data)
	peers := map[string]string{"bridge": srv.URL + "/system/bridge"}
	for _, a := range agents {
		peers[a.Name] = srv.URL + "/agents-hosted/" + a.Name
	}
	dir := newNode(t, peers)
	cliT(t, "heartbeat", "--dir", dir, "--now", snapshotNow)
	return dir
}

// TestSnapshotAgentsThatPublishedYesterdayAreNotOffline guards issue 19.6:
// newagent2 and jarvis-maximum published on 2026-03-14 with `updated:`
// headers weeks old, and were shown offline ("last heartbeat 17 days
// ago") while bridge, which publishes nothing, was the one active peer.
func TestSnapshotAgentsThatPublishedYesterdayAreNotOffline(t *testing.T) {
	dir := caughtUpWithSnapshot(t)
	var rows []peerRow
	if err := json.Unmarshal([]byte(cliT(t, "peers", "--dir", dir, "--now", snapshotNow, "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"newagent2":      {"stale", "last published 2026-03-14 04:50 UTC"},
		"jarvis-maximum": {"stale", "last published 2026-03-14 16:23 UTC"},
		"czero":          {"stale", "last published 2026-03-13 14:29 UTC"},
		"clove":          {"offline", "last published 2026-03-04 09:46 UTC"},
		"bridge":         {"offline", "no dated entry"},
		"abernath37":     {"unreachable", "failing since 2026-03-15 00:00 UTC, never reached"},
	}
	for _, r := range rows {
		w, ok := want[r.Agent]
		if !ok {
			continue
		}
		delete(want, r.Agent)
		if r.Presence != w[0] || r.PresenceNote != w[1] {
			t.Errorf("%s: %s, %q; want %s, %q", r.Agent, r.Presence, r.PresenceNote, w[0], w[1])
		}
	}
	if len(want) > 0 {
		t.Errorf("agents missing from peers --json: %v", want)
	}

	site := filepath.Join(t.TempDir(), "site")
	cliT(t, "build", "--dir", dir, "--out", site, "--now", snapshotNow)
	page, err := os.ReadFile(filepath.Join(site, "peers.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`<span class="presence presence-stale">stale</span> <span class="muted">last published 2026-03-14 04:50 UTC</span>`,
		`<span class="presence presence-stale">stale</span> <span class="muted">last published 2026-03-14 16:23 UTC</span>`,
		`<span class="presence presence-unreachable">unreachable</span> <span class="muted">failing since 2026-03-15 00:00 UTC, never reached</span>`,
	} {
		if !strings.Contains(string(page), s) {
			t.Errorf("peers.html lacks %s", s)
		}
	}
	if strings.Contains(string(page), "presence-active") {
		t.Errorf("peers.html shows an agent active a day after the snapshot's last trace")
	}
}
