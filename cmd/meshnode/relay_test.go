package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/translog"
)

// testLogAgent is an agent that publishes a signed log from a directory
// served on loopback, as a node's heartbeat and `meshnode sign` do.
type testLogAgent struct {
	dir, url   string
	skey, vkey string
	entries    []translog.Entry
}

func newTestLogAgent(t *testing.T) *testLogAgent {
	t.Helper()
	a := &testLogAgent{dir: t.TempDir()}
	srv := httptest.NewServer(http.StripPrefix("/agent/", etagged(a.dir)))
	t.Cleanup(srv.Close)
	a.url = srv.URL + "/agent/"
	a.skey, a.vkey = a.newKey(t)
	a.setIdentity(t)
	return a
}

// etagged serves dir's files with an ETag of their bytes, as GitHub
// Pages does: a file rewritten within the second its Last-Modified
// names is not taken for unchanged.
func etagged(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.URL.Path))); err == nil {
			sum := sha256.Sum256(b)
			w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
		}
		files.ServeHTTP(w, r)
	})
}

func (a *testLogAgent) newKey(t *testing.T) (skey, vkey string) {
	t.Helper()
	return newLogKey(t, a.url)
}

// newLogKey makes a signing key for the log published at url (each call
// another), as the agents and relays of these tests sign with.
func newLogKey(t *testing.T, url string) (skey, vkey string) {
	t.Helper()
	origin, err := translog.Origin(url)
	if err != nil {
		t.Fatal(err)
	}
	skey, vkey, err = translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}

func (a *testLogAgent) setIdentity(t *testing.T) {
	writeTestFile(t, a.dir, node.IdentityFile, "# IDENTITY\n\nname: agent\n"+translog.IdentityKey+": "+a.vkey+"\n")
}

// publish appends n trace entries to the log, signed by skey and
// cosigners.
func (a *testLogAgent) publish(t *testing.T, n int, skey string, cosigners ...string) {
	t.Helper()
	for range n {
		seq := manifest.Seq(len(a.entries) + 1)
		a.entries = append(a.entries, translog.Entry{Seq: seq, Hash: manifest.HashBytes(fmt.Appendf(nil, "trace %d", seq)),
			File: fmt.Sprintf("traces/t%d.md", seq), Type: "knowledge", Submitted: time.Date(2026, 3, 1, 0, 0, int(seq), 0, time.UTC)})
	}
	a.write(t, skey, cosigners...)
}

// write publishes the log of a.entries.
func (a *testLogAgent) write(t *testing.T, skey string, cosigners ...string) {
	t.Helper()
	old, err := node.ReadLog(a.dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := translog.Update(old, a.entries, skey, cosigners...)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		writeTestFile(t, a.dir, node.LogDir+"/"+name, string(data))
	}
}

// rotate hands the log to a new key as `meshnode sign --new-log-key`
// does: the statement signed by both keys is the next entry, the
// checkpoint at it is signed by both, and IDENTITY.md names the new key.
func (a *testLogAgent) rotate(t *testing.T) {
	t.Helper()
	skey, vkey := a.newKey(t)
	size := int64(len(a.entries)) + 1
	origin, _ := translog.Origin(a.url)
	stmt, err := translog.SignKeyStatement(translog.KeyStatement{Kind: translog.KindRotation, Origin: origin, Previous: a.vkey, Key: vkey, Size: size}, a.skey, skey)
	if err != nil {
		t.Fatal(err)
	}
	path := node.LogDir + "/" + translog.KeyStatementPath(translog.KindRotation, size)
	writeTestFile(t, a.dir, path, string(stmt))
	a.entries = append(a.entries, translog.Entry{Seq: manifest.Seq(size), Hash: manifest.HashBytes(stmt), File: path,
		Type: translog.KeyStatementType, Submitted: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)})
	a.write(t, a.skey, skey)
	a.skey, a.vkey = skey, vkey
	a.setIdentity(t)
}

func (a *testLogAgent) checkpoint(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(a.dir, node.LogDir, translog.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testRelay is a relay's directory and the command that runs it.
type testRelay struct {
	dir, key string
}

func newTestRelay(t *testing.T, agents ...string) *testRelay {
	r := &testRelay{dir: t.TempDir(), key: filepath.Join(t.TempDir(), "relay.log-key")}
	roster := "# name | trace_url | joined\n"
	for i, u := range agents {
		roster += fmt.Sprintf("agent%d | %s | 2026-02-01\n", i, u)
	}
	writeTestFile(t, r.dir, node.AgentsFile, roster)
	return r
}

func (r *testRelay) run(t *testing.T) (code int, stdout, stderr string) {
	t.Helper()
	return runSetupCLI(t, "relay", "--dir", r.dir, "--url", "https://relay.example/mesh/", "--key", r.key, "--allow-private-addresses")
}

// log opens the relay's published log with the key the run printed.
func (r *testRelay) log(t *testing.T, stdout string) *relay.Log {
	t.Helper()
	files, err := node.ReadLog(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	rv := strings.Fields(stdout[strings.Index(stdout, "relays.list entry:"):])[3]
	l, err := relay.OpenLog(files, rv)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRelayCommandPublishesAgentsCheckpointsOnce runs `meshnode relay` as
// a person does: a new key written on the first run, the agent's
// checkpoint relayed once, and a second run with nothing new writing
// nothing.
func TestRelayCommandPublishesAgentsCheckpointsOnce(t *testing.T) {
	a := newTestLogAgent(t)
	a.publish(t, 1, a.skey)
	r := newTestRelay(t, a.url)
	code, out, errOut := r.run(t)
	if code != 0 || !strings.Contains(out, "relayed 1 checkpoints of 1 agents; 0 left out; log size 1") || !strings.Contains(out, "relays.list entry: https://relay.example/mesh/ relay.example/mesh+") {
		t.Fatalf("first run: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	cpPath := filepath.Join(r.dir, node.LogDir, translog.CheckpointFile)
	before, err := os.ReadFile(cpPath)
	if err != nil {
		t.Fatal(err)
	}
	stat, _ := os.Stat(cpPath)
	code, out, _ = r.run(t)
	after, _ := os.ReadFile(cpPath)
	stat2, _ := os.Stat(cpPath)
	if code != 0 || !strings.Contains(out, "relayed 0 checkpoints") || string(before) != string(after) || !stat.ModTime().Equal(stat2.ModTime()) {
		t.Fatalf("second run with nothing new: exit %d, %s, checkpoint rewritten: %v", code, out, !stat.ModTime().Equal(stat2.ModTime()))
	}
	if l := r.log(t, out); len(l.Entries) != 1 || string(l.Entries[0].Checkpoint) != a.checkpoint(t) {
		t.Fatalf("the relay's log: %+v", l)
	}
	if code, _, errOut := runSetupCLI(t, "relay", "--dir", r.dir, "--url", "https://other.example/", "--key", r.key); code != 2 || !strings.Contains(errOut, "not named other.example") {
		t.Fatalf("a key named for another relay: exit %d, %s", code, errOut)
	}
}

// TestRelayThatReachesNoAgentWritesNothing guards the bug of a run whose
// one agent was down writing an empty log: a run that relays nothing new
// writes nothing, and exits 0 as a heartbeat whose peers all failed does,
// naming the agent on stderr.
func TestRelayThatReachesNoAgentWritesNothing(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	r := newTestRelay(t, down.URL+"/agent/")
	code, out, errOut := r.run(t)
	if code != 0 || !strings.Contains(out, "relayed 0 checkpoints of 1 agents; 1 left out; log size 0") || !strings.Contains(errOut, down.URL+"/agent/") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, p := range []string{node.LogDir, node.StateDir} {
		if _, err := os.Stat(filepath.Join(r.dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s written by a run that relayed nothing (%v)", p, err)
		}
	}
}

// TestRelayFollowsAnAgentsKeyRotation: an agent rotates its log key, and
// the relay goes on relaying it with no operator action, the rotation
// checked as a node checks it; a checkpoint signed by a key no rotation
// announced is refused, and the relay's log does not change.
func TestRelayFollowsAnAgentsKeyRotation(t *testing.T) {
	a := newTestLogAgent(t)
	a.publish(t, 2, a.skey)
	r := newTestRelay(t, a.url)
	if code, out, errOut := r.run(t); code != 0 || !strings.Contains(out, "relayed 1 checkpoints") {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errOut)
	}
	// Rotated and grown since the relay's last run: the relay never sees
	// the checkpoint both keys signed.
	a.rotate(t)
	a.publish(t, 2, a.skey)
	code, out, errOut := r.run(t)
	if code != 0 || !strings.Contains(out, "relayed 1 checkpoints of 1 agents; 0 left out; log size 2") {
		t.Fatalf("after the rotation: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if l := r.log(t, out); string(l.Entries[1].Checkpoint) != a.checkpoint(t) {
		t.Fatalf("relayed %q, want the agent's checkpoint under its new key", l.Entries[1].Checkpoint)
	}
	pins, err := logpin.Load(filepath.Join(r.dir, node.LogPinsFile))
	if err != nil {
		t.Fatal(err)
	}
	if p := pins.Get(a.url); p == nil || p.Key != a.vkey || len(p.Rotations) != 1 {
		t.Fatalf("the relay's pin of the agent: %+v", p)
	}

	before, err := node.ReadLog(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	// The agent's next entry, signed by a key no statement names, which
	// IDENTITY.md now publishes.
	a.publish(t, 1, a.skey)
	impostor, vkey := a.newKey(t)
	files, err := translog.Update(nil, a.entries, impostor)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, a.dir, node.LogDir+"/"+translog.CheckpointFile, string(files[translog.CheckpointFile]))
	a.vkey = vkey
	a.setIdentity(t)
	code, out, errOut = r.run(t)
	if code != 0 || !strings.Contains(out, "relayed 0 checkpoints of 1 agents; 1 left out; log size 2") || !strings.Contains(errOut, "log refused (key_change)") {
		t.Fatalf("a checkpoint of an unannounced key: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	after, err := node.ReadLog(r.dir)
	if err != nil || len(after) != len(before) || string(after[translog.CheckpointFile]) != string(before[translog.CheckpointFile]) {
		t.Fatalf("the relay's log changed for a refused checkpoint (%v)", err)
	}
	// Its operator checked the new key with the agent, and re-pins it.
	if code, out, errOut := runSetupCLI(t, "peers", "repin", a.url, "--dir", r.dir); code != 0 || !strings.Contains(out, "re-pinned agent0") {
		t.Fatalf("peers repin in the relay's directory: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := r.run(t); code != 0 || !strings.Contains(out, "relayed 1 checkpoints of 1 agents; 0 left out; log size 3") {
		t.Fatalf("after the re-pin: exit %d\n%s%s", code, out, errOut)
	}
}

// TestRelayFollowsARotationItSawHappen: the relay reads the checkpoint
// both keys signed at the rotation, then the next one, signed by the new
// key alone: the rotation read with the first moves its pin.
func TestRelayFollowsARotationItSawHappen(t *testing.T) {
	a := newTestLogAgent(t)
	a.publish(t, 2, a.skey)
	r := newTestRelay(t, a.url)
	for i, step := range []func(){
		func() {},
		func() { a.rotate(t) },
		func() { a.publish(t, 1, a.skey) },
	} {
		step()
		code, out, errOut := r.run(t)
		if want := fmt.Sprintf("relayed 1 checkpoints of 1 agents; 0 left out; log size %d", i+1); code != 0 || !strings.Contains(out, want) {
			t.Fatalf("run %d: exit %d, want %q\nstdout %s\nstderr %s", i+1, code, want, out, errOut)
		}
	}
}

// TestRelayRequestsFollowWhatChanged holds the relay's requests to what
// docs/cli/relay.md says: one conditional request for an agent whose log
// did not change, at most 2 + ⌈n/256⌉ for one that grew by n entries.
func TestRelayRequestsFollowWhatChanged(t *testing.T) {
	var agents []*testLogAgent
	var urls []string
	for range 3 {
		a := newTestLogAgent(t)
		a.publish(t, 300, a.skey)
		agents, urls = append(agents, a), append(urls, a.url)
	}
	r := newTestRelay(t, urls...)
	requests := func(name string) int {
		t.Helper()
		code, out, errOut := r.run(t)
		var relayed, n int
		if _, err := fmt.Sscanf(out[strings.Index(out, "relayed "):], "relayed %d checkpoints", &relayed); err != nil || code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", name, code, out, errOut)
		}
		fields := strings.Fields(out[:strings.Index(out, " requests")])
		fmt.Sscan(fields[len(fields)-1], &n)
		t.Logf("%s: relayed %d, %d requests for %d agents", name, relayed, n, len(agents))
		return n
	}
	requests("first contact")
	if n := requests("nothing new"); n != len(agents) {
		t.Errorf("a run with nothing new made %d requests, want one per agent (%d)", n, len(agents))
	}
	for _, a := range agents {
		a.publish(t, 1, a.skey)
	}
	if n := requests("one new entry each"); n > 3*len(agents) {
		t.Errorf("a run after one new entry each made %d requests, want at most 3 per agent (%d)", n, 3*len(agents))
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
