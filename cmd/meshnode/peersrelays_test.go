package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/statefile"
)

// servedRelay is a relay's log of agents' checkpoints, served on loopback.
type servedRelay struct {
	dir, url string
}

func newServedRelay(t *testing.T) *servedRelay {
	r := &servedRelay{dir: t.TempDir()}
	srv := httptest.NewServer(http.StripPrefix("/relay/", etagged(r.dir)))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/relay/"
	return r
}

// key makes a key named for the relay: each call another.
func (r *servedRelay) key(t *testing.T) (skey, vkey string) {
	t.Helper()
	return newLogKey(t, r.url)
}

// publish serves a log of n agents' checkpoints signed by skey.
func (r *servedRelay) publish(t *testing.T, n int, skey string) {
	t.Helper()
	var es []relay.Entry
	for i := range n {
		a := newTestLogAgent(t)
		a.publish(t, i+1, a.skey)
		es = append(es, relay.Entry{Agent: a.url, Checkpoint: []byte(a.checkpoint(t))})
	}
	files, err := (&relay.Log{}).Extend(es, skey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(r.dir, node.LogDir)); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		writeTestFile(t, r.dir, node.LogDir+"/"+name, string(data))
	}
}

// TestPeersShowsAFaultedRelayAndForgivesItOnceChecked runs a node's
// heartbeats through a relay as its operator lives it: a relay that
// serves a log its key does not sign is faulted, `peers` shows it with the
// file of the evidence, stays faulted once it serves a good log, and
// `peers forgive-relay` (the operator having looked) drops its state, so
// that the next heartbeat reads the relay afresh, and keeps the fault with
// its evidence among the relay's resolved faults, there after that read.
func TestPeersShowsAFaultedRelayAndForgivesItOnceChecked(t *testing.T) {
	r := newServedRelay(t)
	skey, vkey := r.key(t)
	impostor, _ := r.key(t)
	dir := t.TempDir()
	writeTestFile(t, dir, "mesh.yaml", fmt.Sprintf("agent: ada\nurl: https://ada.example/\nallow_private_addresses: true\nrelays:\n  list:\n    - %s %s\n", r.url, vkey))
	writeTestFile(t, dir, node.AgentsFile, "# name | trace_url | joined\n")
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	beat := func() {
		t.Helper()
		cliT(t, "heartbeat", "--dir", dir, "--now", now.Format(time.RFC3339))
		now = now.Add(30 * time.Minute)
	}
	peers := func() string {
		t.Helper()
		return cliT(t, "peers", "--dir", dir, "--now", now.Format(time.RFC3339))
	}
	if out := peers(); !strings.Contains(out, "relay: "+r.url+": not read yet\n") {
		t.Fatalf("before any heartbeat:\n%s", out)
	}

	r.publish(t, 2, impostor)
	beat()
	evidence := filepath.ToSlash(filepath.Join(node.StateDir, "relays")) + "/"
	out := peers()
	if !strings.Contains(out, "relay: "+r.url+": faulted (bad_signature: ") || !strings.Contains(out, "evidence in "+evidence) ||
		!strings.Contains(out, "once checked, run meshnode peers forgive-relay "+r.url) {
		t.Fatalf("a relay whose log its key does not sign:\n%s", out)
	}
	file := out[strings.Index(out, "evidence in ")+len("evidence in "):]
	file = file[:strings.Index(file, ";")]
	if b, err := readPeerRef(dir, file); err != nil || !strings.Contains(string(b), `"kind": "bad_signature"`) {
		t.Fatalf("the evidence file %s: %v\n%s", file, err, b)
	}

	r.publish(t, 2, skey)
	beat()
	if out := peers(); !strings.Contains(out, "faulted (bad_signature") {
		t.Fatalf("a faulted relay was read again without its operator:\n%s", out)
	}
	fault := heldRelay(t, dir, file).Fault
	if fault == nil || fault.Kind != relay.FaultSignature || len(fault.Checkpoints) != 1 {
		t.Fatalf("the fault held before forgive-relay: %+v", fault)
	}
	forgiven := now
	code, out, errOut := runSetupCLI(t, "peers", "forgive-relay", r.url, "--dir", dir, "--now", forgiven.Format(time.RFC3339))
	if code != 0 || !strings.Contains(out, "forgave relay "+r.url+": its bad_signature fault of ") ||
		!strings.Contains(out, "the fault and its evidence stay in "+file+", among its resolved faults\n") {
		t.Fatalf("forgive-relay: exit %d\n%s%s", code, out, errOut)
	}
	// The fault is kept, evidence and all, as it was held, with the time
	// it was forgiven; the relay is read afresh, and keeps it after.
	kept := func(when string) {
		t.Helper()
		h := heldRelay(t, dir, file)
		if len(h.Resolved) != 1 || !h.Resolved[0].Forgiven.Equal(forgiven) {
			t.Fatalf("%s: the resolved faults %+v, want the fault forgiven at %s", when, h.Resolved, forgiven)
		}
		if got := h.Resolved[0].Fault; !reflect.DeepEqual(got, *fault) {
			t.Fatalf("%s: the fault kept\n%+v\nwant, as it was held,\n%+v", when, got, *fault)
		}
	}
	kept("after forgive-relay")
	since := "; forgiven once, " + forgiven.Format(time.RFC3339) + "\n"
	if out := peers(); !strings.Contains(out, "relay: "+r.url+": not read yet"+since) {
		t.Fatalf("after forgive-relay:\n%s", out)
	}
	beat()
	if out := peers(); !strings.Contains(out, "relay: "+r.url+": ok; read 2 of 2 entries; 0 agents listed"+since) {
		t.Fatalf("the heartbeat after forgive-relay:\n%s", out)
	}
	kept("after the heartbeat that read the relay again")

	for _, tc := range []struct{ url, want string }{
		{r.url, "is not faulted"},
		{"https://other.example/", "is not in relays.list"},
	} {
		if code, _, errOut := runSetupCLI(t, "peers", "forgive-relay", tc.url, "--dir", dir); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("forgive-relay %s: exit %d, %s", tc.url, code, errOut)
		}
	}
	unlock, err := node.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if code, _, errOut := runSetupCLI(t, "peers", "forgive-relay", r.url, "--dir", dir); code != 2 || !strings.Contains(errOut, "a heartbeat holds the node") {
		t.Errorf("forgive-relay while a heartbeat runs: exit %d, %s", code, errOut)
	}
}

// heldRelayState is a relay's state file as a test reads it: Forgiven
// is spelled here, so that the test reads a node's that keeps no resolved
// faults too.
type heldRelayState struct {
	Fault    *relay.Fault `json:"fault"`
	Resolved []struct {
		relay.Fault
		Forgiven time.Time `json:"forgiven"`
	} `json:"resolved"`
}

// heldRelay is the relay state held in the file at rel under dir, as
// `peers` names it.
// readPeerRef reads the contents a message names as its shard's path,
// "#" and its key (statefile.PeerRef) in the node at dir.
func readPeerRef(dir, ref string) ([]byte, error) {
	shard, key, ok := strings.Cut(ref, "#")
	if !ok {
		return nil, fmt.Errorf("%s: not a shard's path and a key", ref)
	}
	return statefile.ReadOne(filepath.Dir(filepath.Join(dir, filepath.FromSlash(shard)))+".json", key)
}

func heldRelay(t *testing.T, dir, rel string) heldRelayState {
	t.Helper()
	data, err := readPeerRef(dir, rel)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Relay *heldRelayState `json:"relay"`
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Relay == nil {
		t.Fatalf("%s: %v\n%s", rel, err, data)
	}
	return *f.Relay
}

// TestPeersShowsALaggingRelay: of two relays listing an agent, the one
// whose listing has trailed the other's for over an hour is shown
// lagging, as the heartbeat's summary judges it; the other ok.
func TestPeersShowsALaggingRelay(t *testing.T) {
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	fast, slow := newServedRelay(t), newServedRelay(t)
	_, fastKey := fast.key(t)
	_, slowKey := slow.key(t)
	dir := minimalNode(t)
	writeTestFile(t, dir, "mesh.yaml", fmt.Sprintf("agent: ada\nurl: https://ada.example/\nrelays:\n  list:\n    - %s %s\n    - %s %s\n", fast.url, fastKey, slow.url, slowKey))
	writeTestFile(t, dir, node.AgentsFile, "# name | trace_url | joined\nann | https://ann.example/ | 2026-02-01\n")
	store, err := relay.LoadStore(filepath.Join(dir, node.RelaysFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r         *servedRelay
		key       string
		size      int64
		listed    int64
		listedAgo time.Duration
	}{{fast, fastKey, 7, 5, 2 * time.Hour}, {slow, slowKey, 4, 3, 3 * time.Hour}} {
		h := store.Held(relay.Relay{URL: c.r.url, Key: c.key})
		h.Checkpoint, h.Size, h.Read = "a checkpoint", c.size, c.size
		h.Agents = map[string]relay.Listed{"https://ann.example/": {Size: c.listed, Root: "cm9vdA==", Seen: now.Add(-c.listedAgo)}}
	}
	if _, err := store.Save(); err != nil {
		t.Fatal(err)
	}
	out := cliT(t, "peers", "--dir", dir, "--now", now.Format(time.RFC3339))
	if !strings.Contains(out, "relay: "+fast.url+": ok; read 7 of 7 entries; 1 agents listed\n") ||
		!strings.Contains(out, "relay: "+slow.url+": lagging; read 4 of 4 entries; 1 agents listed\n") {
		t.Fatalf("two relays, one trailing the other by two hours:\n%s", out)
	}
}
