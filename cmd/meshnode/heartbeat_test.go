package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/state"
)

// cliT runs a meshnode command in-process and fails the test unless it
// exits 0.
func cliT(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runSetupCLI(t, args...)
	if code != exitOK {
		t.Fatalf("meshnode %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// publishTrace writes a trace with `meshnode trace new` and takes it out
// of draft, as a person does before the next heartbeat publishes it.
func publishTrace(t *testing.T, dir, title string) {
	t.Helper()
	cliT(t, "trace", "new", "--dir", dir, title, "--type", "knowledge")
	matches, err := filepath.Glob(filepath.Join(dir, "traces", "*"+strings.ReplaceAll(strings.ToLower(title), " ", "-")+".md"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("trace new wrote %v (%v)", matches, err)
	}
	data, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("draft: true\n"), nil, 1)
	if err := os.WriteFile(matches[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// peerServer is a peer on 127.0.0.1: a node made with the CLI (init, one
// published trace, a heartbeat) served as GitHub Pages serves it. served
// is closed once the peer's AGENTS.md was asked for, which a poll does
// after it fetched and verified the peer's files.
type peerServer struct {
	*httptest.Server
	dir    string
	served chan struct{}
}

func newPeer(t *testing.T, name string) *peerServer {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	p := &peerServer{dir: dir, served: make(chan struct{})}
	var once sync.Once
	files := http.FileServer(http.Dir(dir))
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		files.ServeHTTP(w, r)
		if r.URL.Path == "/AGENTS.md" {
			once.Do(func() { close(p.served) })
		}
	}))
	t.Cleanup(p.Close)
	cliT(t, "init", "--dir", dir, "--agent", name, "--url", p.URL+"/")
	publishTrace(t, dir, "What "+name+" found")
	cliT(t, "heartbeat", "--dir", dir)
	return p
}

// slowPeer answers nothing until the client gives up; arrived is closed at
// its first request.
func slowPeer(t *testing.T) (srv *httptest.Server, arrived chan struct{}) {
	t.Helper()
	arrived = make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, arrived
}

// newNode makes a node with the CLI that follows the given peers.
func newNode(t *testing.T, peers map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ada")
	cliT(t, "init", "--dir", dir, "--agent", "ada", "--url", "http://127.0.0.1:1/ada/")
	agents := "# name | trace_url | joined\n"
	for _, name := range slices.Sorted(maps.Keys(peers)) {
		agents += name + " | " + peers[name] + "/ | 2026-01-01\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(agents), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestHeartbeatOnATerminalShowsProgressNotAPeerLogLine(t *testing.T) {
	bob := newPeer(t, "bob")
	tests := []struct {
		name        string
		args        []string
		errTerminal bool
		wantLog     bool
		wantBar     bool
	}{
		{"terminal", nil, true, false, true},
		{"terminal, logs asked for", []string{"--log-format", "text"}, true, true, true},
		{"not a terminal", nil, false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newNode(t, map[string]string{"bob": bob.URL})
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr, now: time.Now, errTerminal: tt.errTerminal}
			if err := commands["heartbeat"].run(context.Background(), e, append([]string{"--dir", dir}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(stderr.String(), "msg=poll"); got != tt.wantLog {
				t.Errorf("per-peer log line shown: %v, want %v; stderr:\n%s", got, tt.wantLog, stderr.String())
			}
			if got := strings.Contains(stderr.String(), "polled 1/1 peers (bob)"); got != tt.wantBar {
				t.Errorf("progress line shown: %v, want %v; stderr:\n%s", got, tt.wantBar, stderr.String())
			}
			if !strings.Contains(stdout.String(), "files: 1 new traces") {
				t.Errorf("summary:\n%s", stdout.String())
			}
		})
	}
}

// The acceptance test: Ctrl-C during a heartbeat that waits on a
// slow peer exits 130, says it was interrupted, and keeps everything the
// run did: the other peer's trace, our own published trace, and the slow
// peer's cursor unblamed. The signal goes to the real process.
func TestHeartbeatInterruptedBySIGINTExits130AndKeepsItsWork(t *testing.T) {
	bin, err := exec.LookPath("meshnode") // the test binary, put on PATH by testscript.Main
	if err != nil {
		t.Skip("no meshnode on PATH: ", err)
	}
	bob := newPeer(t, "bob")
	slow, arrived := slowPeer(t)
	dir := newNode(t, map[string]string{"bob": bob.URL, "slow": slow.URL})
	publishTrace(t, dir, "Our own work")
	summary := filepath.Join(t.TempDir(), "hb.json")

	cmd := exec.Command(bin, "heartbeat", "--dir", dir, "--summary", summary)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-arrived
	<-bob.served
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d (%v), want 130\nstdout:\n%s\nstderr:\n%s", code, err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "\ninterrupted: ") || !strings.Contains(stderr.String(), "interrupted by SIGINT (Ctrl-C): state saved") {
		t.Errorf("no interrupted line\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}

	var sum struct {
		Interrupted     bool `json:"interrupted"`
		NewTraces       int  `json:"new_traces"`
		TracesPublished int  `json:"traces_published"`
		PeersFailed     int  `json:"peers_failed"`
	}
	readJSON(t, summary, &sum)
	if !sum.Interrupted || sum.NewTraces != 1 || sum.TracesPublished != 1 || sum.PeersFailed != 0 {
		t.Errorf("summary = %+v, want interrupted with bob's trace and ours, no failure", sum)
	}
	cursors, err := state.Load(filepath.Join(dir, "mesh-state", "polling-cursors.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := cursors.Cursor(bob.URL + "/"); c.LastSeenSeq != 1 {
		t.Errorf("bob's cursor = %+v, want seq 1 kept", c)
	}
	if c := cursors.Cursor(slow.URL + "/"); c.FailureCount != 0 {
		t.Errorf("the slow peer was blamed for our interrupt: %+v", c)
	}
	if m, _ := os.ReadFile(filepath.Join(dir, "MANIFEST.md")); !bytes.Contains(m, []byte("our-own-work.md")) {
		t.Errorf("our trace is not published:\n%s", m)
	}
	// The run was saved, not half-written: a second one finds nothing
	// of bob's to fetch again.
	agents := "# name | trace_url | joined\nbob | " + bob.URL + "/ | 2026-01-01\n"
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(agents), 0o644); err != nil {
		t.Fatal(err)
	}
	out := cliT(t, "heartbeat", "--dir", dir)
	if !strings.Contains(out, "files: 0 new traces") {
		t.Errorf("the rerun fetched again:\n%s", out)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// The first catch-up with a peer, cut short (here its files answered 404
// at first: they are retried), goes on at the next heartbeat; what that
// one reads is still the catch-up, and no "spike:" is reported for it (the
// first catch-up printed a false spike for every peer it took two
// heartbeats to read).
func TestFirstCatchUpOverTwoHeartbeatsReportsNoSpike(t *testing.T) {
	bob := newPeer(t, "bob")
	for _, title := range []string{"Second finding", "Third finding", "Fourth finding"} {
		publishTrace(t, bob.dir, title)
	}
	cliT(t, "heartbeat", "--dir", bob.dir)
	dir := newNode(t, map[string]string{"bob": bob.URL})
	traces, hidden := filepath.Join(bob.dir, "traces"), filepath.Join(bob.dir, "hidden")
	if err := os.Rename(traces, hidden); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	out := cliT(t, "heartbeat", "--dir", dir, "--now", now.Format(time.RFC3339))
	if !strings.Contains(out, "files: 0 new traces") {
		t.Fatalf("first heartbeat read files bob does not serve:\n%s", out)
	}
	if err := os.Rename(hidden, traces); err != nil {
		t.Fatal(err)
	}
	out = cliT(t, "heartbeat", "--dir", dir, "--now", now.Add(30*time.Minute).Format(time.RFC3339))
	if !strings.Contains(out, "files: 4 new traces") || strings.Contains(out, "spike:") {
		t.Errorf("second heartbeat, the rest of the catch-up: want 4 new traces and no spike:\n%s", out)
	}
}
