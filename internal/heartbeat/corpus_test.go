package heartbeat

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/state"
)

// corpusHost serves the real-mesh snapshot over loopback, with overlays a
// test can set to change what one path serves (backfills, tampering), and
// counts the trace files fetched.
type corpusHost struct {
	dir     string
	mu      sync.Mutex
	overlay map[string][]byte
	traces  int
}

func (h *corpusHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	body, ok := h.overlay[r.URL.Path]
	if strings.Contains(r.URL.Path, "/traces/") {
		h.traces++
	}
	h.mu.Unlock()
	if ok {
		w.Write(body)
		return
	}
	http.FileServer(http.Dir(h.dir)).ServeHTTP(w, r)
}

func (h *corpusHost) set(path string, body []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.overlay[path] = body
}

func (h *corpusHost) tracesFetched() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.traces
	h.traces = 0
	return n
}

// corpusPeers rewrites the snapshot's AGENTS.md to point at srv. Agents
// with no directory in the snapshot point at paths that 404, as they do
// from the snapshot's point of view.
func corpusPeers(t testing.TB, dir, srvURL string) [][2]string {
	data, err := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := roster.Parse(data)
	var peers [][2]string
	for _, a := range agents {
		peers = append(peers, [2]string{a.Name, srvURL + "/agents-hosted/" + a.Name + "/"})
	}
	return append(peers, [2]string{"bridge", srvURL + "/system/bridge/"})
}

func TestHeartbeatOverTheRealMesh(t *testing.T) {
	corpus := corpustest.Dir(t)
	host := &corpusHost{dir: corpus, overlay: map[string][]byte{}}
	srv := httptest.NewServer(host)
	defer srv.Close()
	dir := newNode(t, corpusPeers(t, corpus, srv.URL), "")

	// noobagent lists the same bytes as seq 65 and 66: 855 distinct files
	// are verified, and the repeat is seen as a duplicate (docs/protocol.md §6.4).
	sum := beat(t, dir, testNow)
	if sum.Verified != 855 || sum.Duplicates != 1 || sum.Rejected != 0 {
		t.Fatalf("first heartbeat verified %d, duplicates %d, rejected %d; want 855 + 1 duplicate of 856 rows",
			sum.Verified, sum.Duplicates, sum.Rejected)
	}
	if sum.PeersFailed != 3 {
		t.Errorf("peers failed = %d (%v), want the 3 agents with no directory", sum.PeersFailed, sum.Failures)
	}
	st := loadState(t, dir)
	if len(st.SeenHashes) != 855 {
		t.Errorf("seen hashes = %d, want the 855 distinct files", len(st.SeenHashes))
	}
	noob := st.Cursors[srv.URL+"/agents-hosted/noobagent/"]
	if noob == nil || noob.LastSeenSeq != 254 || len(noob.Gaps) == 0 {
		t.Fatalf("noobagent cursor = %+v, want seq 254 with its gaps recorded", noob)
	}
	if state.Ranges(noob.Gaps).Contains(66) {
		t.Errorf("seq 66 (a repeat of 65's bytes) recorded as a gap: %v", noob.Gaps)
	}
	if !state.Ranges(noob.Gaps).Contains(104) || !state.Ranges(noob.Gaps).Contains(151) {
		t.Errorf("noobagent gaps %v do not hold 104-151", noob.Gaps)
	}
	// jarvis-maximum and czero publish validation traces that name what
	// they judge as agent/seq, never by hash: each is its own trace, and
	// neither agent published a validation file (docs/decisions.md, "What a
	// row is"). These counts are what `meshnode peers` shows.
	led := loadLedger(t, dir)
	for name, want := range map[string]int{"jarvis-maximum": 174, "czero": 123} {
		u := srv.URL + "/agents-hosted/" + name + "/"
		if tr, vs := len(led.TracesBy(u)), len(led.ValidationsBy(u)); tr != want || vs != 0 {
			t.Errorf("%s: %d traces and %d validations recorded, want %d and 0", name, tr, vs, want)
		}
	}
	// The agents' own verdict traces draw the trust graph among them.
	in, err := signal.Load(dir, "tester", "http://127.0.0.1:1/tester/")
	if err != nil {
		t.Fatal(err)
	}
	edges, votes := 0, 0
	for _, e := range signal.Compute(in).Trust {
		if e.Verdicts > 0 && e.Validator != "tester" && e.Agent != "tester" {
			edges++
			votes += e.Verdicts
		}
	}
	if edges != 13 || votes != 38 {
		t.Errorf("trust graph: %d verdict votes in %d edges between the agents, want 38 in 13", votes, edges)
	}
	bridge := st.Cursors[srv.URL+"/system/bridge/"]
	if bridge == nil || bridge.FailureCount != 0 {
		t.Errorf("bridge's empty manifest counted as a failure: %+v", bridge)
	}
	host.tracesFetched()

	sum = beat(t, dir, testNow.Add(30*60e9))
	if n := host.tracesFetched(); n != 0 || sum.Verified != 0 {
		t.Fatalf("second heartbeat fetched %d traces (verified %d), want none", n, sum.Verified)
	}

	// noobagent backfills seq 104, and tampers with a file it adds as 255.
	backfill := []byte("# Backfilled\n\nA trace published late.\n")
	tampered := []byte("# Tampered\n\nServed bytes differ.\n")
	manPath := "/agents-hosted/noobagent/MANIFEST.md"
	orig, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(manPath)))
	if err != nil {
		t.Fatal(err)
	}
	rows := "| 104 | " + string(manifest.HashBytes(backfill)) + " | traces/104-backfill.md | knowledge | submitted | 2026-03-02T15:00:00Z |\n" +
		"| 255 | " + string(manifest.HashBytes([]byte("what the manifest promised"))) + " | traces/255-tampered.md | knowledge | submitted | 2026-03-02T15:00:00Z |\n"
	man := strings.Replace(string(orig), "sequence: 254", "sequence: 255", 1) + rows
	host.set(manPath, []byte(man))
	host.set("/agents-hosted/noobagent/traces/104-backfill.md", backfill)
	host.set("/agents-hosted/noobagent/traces/255-tampered.md", tampered)

	sum = beat(t, dir, testNow.Add(60*60e9))
	if sum.Verified != 1 || sum.NewTraces != 1 {
		t.Errorf("third heartbeat verified %d new %d, want exactly the backfilled seq", sum.Verified, sum.NewTraces)
	}
	if sum.Rejected != 1 || len(sum.HashMismatches) != 1 || sum.HashMismatches[0].Seq != 255 {
		t.Errorf("tampered trace not rejected: rejected=%d mismatches=%v", sum.Rejected, sum.HashMismatches)
	}
	st = loadState(t, dir)
	noob = st.Cursors[srv.URL+"/agents-hosted/noobagent/"]
	if state.Ranges(noob.Gaps).Contains(104) {
		t.Errorf("seq 104 still recorded as a gap after its backfill: %v", noob.Gaps)
	}
	if st.Seen(manifest.HashBytes(tampered)) || st.Seen(manifest.HashBytes([]byte("what the manifest promised"))) {
		t.Error("a tampered trace was marked seen")
	}
	if l := loadLedger(t, dir); len(l.Rejected) != 1 {
		t.Errorf("ledger rejections = %d, want 1", len(l.Rejected))
	}
	if _, err := os.Stat(filepath.Join(dir, "disputes")); err != nil {
		t.Errorf("no dispute published for the mismatch: %v", err)
	}
}
