package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/translog"
)

// TestRelayCommandPublishesAgentsCheckpointsOnce runs `meshnode relay` as
// a person does: a new key written on the first run, the agent's
// checkpoint relayed once, and a second run with nothing new writing
// nothing.
func TestRelayCommandPublishesAgentsCheckpointsOnce(t *testing.T) {
	agentDir := t.TempDir()
	srv := httptest.NewServer(http.StripPrefix("/agent/", http.FileServer(http.Dir(agentDir))))
	t.Cleanup(srv.Close)
	agentURL := srv.URL + "/agent/"
	origin, _ := translog.Origin(agentURL)
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := translog.Sign(translog.Checkpoint{Origin: origin, Size: 1}, skey)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, agentDir, node.IdentityFile, "# IDENTITY\n\n"+translog.IdentityKey+": "+vkey+"\n")
	writeTestFile(t, agentDir, "log/checkpoint", string(cp))

	dir := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "relay.log-key")
	writeTestFile(t, dir, node.AgentsFile, "# name | trace_url | joined\nagent | "+agentURL+" | 2026-02-01\n")
	args := []string{"relay", "--dir", dir, "--url", "https://relay.example/mesh/", "--key", keyFile, "--allow-private-addresses"}
	code, out, errOut := runSetupCLI(t, args...)
	if code != 0 || !strings.Contains(out, "relayed 1 checkpoints of 1 agents; log size 1") || !strings.Contains(out, "relays.list entry: https://relay.example/mesh/ relay.example/mesh+") {
		t.Fatalf("first run: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	before, err := os.ReadFile(filepath.Join(dir, node.LogDir, translog.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	stat, _ := os.Stat(filepath.Join(dir, node.LogDir, translog.CheckpointFile))
	code, out, _ = runSetupCLI(t, args...)
	after, _ := os.ReadFile(filepath.Join(dir, node.LogDir, translog.CheckpointFile))
	stat2, _ := os.Stat(filepath.Join(dir, node.LogDir, translog.CheckpointFile))
	if code != 0 || !strings.Contains(out, "relayed 0 checkpoints") || string(before) != string(after) || !stat.ModTime().Equal(stat2.ModTime()) {
		t.Fatalf("second run with nothing new: exit %d, %s, checkpoint rewritten: %v", code, out, !stat.ModTime().Equal(stat2.ModTime()))
	}
	files, err := node.ReadLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	rv := strings.Fields(out[strings.Index(out, "relays.list entry:"):])[3]
	l, err := relay.OpenLog(files, rv)
	if err != nil || len(l.Entries) != 1 || string(l.Entries[0].Checkpoint) != string(cp) {
		t.Fatalf("the relay's log: %+v, %v", l, err)
	}
	if code, _, errOut := runSetupCLI(t, "relay", "--dir", dir, "--url", "https://other.example/", "--key", keyFile); code != 2 || !strings.Contains(errOut, "not named other.example") {
		t.Fatalf("a key named for another relay: exit %d, %s", code, errOut)
	}
}

func writeTestFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
