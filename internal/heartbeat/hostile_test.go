package heartbeat

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// goodPeer serves a canonical manifest with two traces.
func goodPeer(t *testing.T) *httptest.Server {
	files := map[string]string{
		"traces/001-a.md": "# A\n\n## Work\n\nDone.\n",
		"traces/002-b.md": "# B\n\n## Work\n\nDone too.\n",
	}
	m := manifest.Manifest{Agent: "good", Sequence: 2}
	seq := 0
	for _, name := range []string{"traces/001-a.md", "traces/002-b.md"} {
		seq++
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes([]byte(files[name])), File: name, Type: "knowledge", Status: "pending"})
	}
	body := m.Format()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/")
		if p == "MANIFEST.md" {
			w.Write(body)
			return
		}
		if f, ok := files[p]; ok {
			fmt.Fprint(w, f)
			return
		}
		http.NotFound(w, r)
	}))
}

// hostileConfig is the node's config for TestHeartbeatSurvivesHostilePeers.
// The request timeout is what cuts the dripping peer, and every other
// peer's answers must beat it: they come in milliseconds on an idle
// machine, but at 500 ms the robots.txt of two peers that answer at once
// (a 429 and a manifest) timed out on a 2-core machine loaded by other
// jobs, under -race, failing the test one run in thirty. 5 s is ten times
// that and costs the test only the drip's wait, which runs beside the
// others; it stays under a peer's share of the 30 s deadline (5.6 s), so
// the drip is cut by the request timeout, as in production.
const hostileConfig = "heartbeat:\n  deadline: 30s\n  request_timeout: 5s\nlimits:\n  manifest_bytes: 65536\n"

func TestHeartbeatSurvivesHostilePeers(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	stop := make(chan struct{})
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("| 1 | x |\n", 1000))
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer endless.Close()
	drip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("# MANIFEST\n"))
		w.(http.Flusher).Flush()
		select { // drips nothing more until the client gives up
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer drip.Close()
	defer close(stop)
	traversal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := manifest.Manifest{Agent: "sneaky", Sequence: 1, Entries: []manifest.Entry{
			{Seq: 1, Hash: manifest.HashBytes([]byte("x")), File: "../../etc/passwd", Type: "knowledge", Status: "pending"},
		}}
		w.Write(m.Format())
	}))
	defer traversal.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, good.URL+"/MANIFEST.md", http.StatusFound)
	}))
	defer redirect.Close()
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer limited.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("\x00\x01\x02 this is not a manifest \xff\xfe"))
	}))
	defer garbage.Close()
	headers := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pad := strings.Repeat("x", 8<<10)
		for i := range 128 { // 1 MiB of headers, past fetch.MaxHeaderBytes
			w.Header().Set(fmt.Sprintf("X-Pad-%d", i), pad)
		}
		w.Write((&manifest.Manifest{Agent: "headers"}).Format())
	}))
	defer headers.Close()

	dir := newNode(t, [][2]string{
		{"good", good.URL + "/"}, {"endless", endless.URL + "/"}, {"drip", drip.URL + "/"},
		{"traversal", traversal.URL + "/"}, {"redirect", redirect.URL + "/"},
		{"limited", limited.URL + "/"}, {"garbage", garbage.URL + "/"}, {"headers", headers.URL + "/"},
	}, hostileConfig)

	sum := beat(t, dir, testNow)

	if sum.Verified != 2 {
		t.Errorf("good peer: verified %d, want 2", sum.Verified)
	}
	failed := map[string]string{}
	for _, f := range sum.Failures {
		failed[f.Peer] = f.Error
	}
	for _, name := range []string{"endless", "drip", "redirect", "garbage", "headers"} {
		if _, ok := failed[name]; !ok {
			t.Errorf("%s: not recorded as a failed poll (failures: %v)", name, sum.Failures)
		}
	}
	if _, ok := failed["limited"]; ok || sum.PeersRateLimited != 1 {
		t.Errorf("a 429 must be kept apart from failures: rate-limited=%d failures=%v", sum.PeersRateLimited, sum.Failures)
	}
	if sum.Rejected != 1 {
		t.Errorf("path traversal entry: rejected = %d, want 1", sum.Rejected)
	}
	st := loadState(t, dir)
	if c := st.Cursors[limited.URL+"/"]; c == nil || c.FailureCount != 0 {
		t.Errorf("rate-limited peer's failure count moved: %+v", c)
	}
	if c := st.Cursors[garbage.URL+"/"]; c == nil || c.FailureCount != 1 {
		t.Errorf("garbage peer's failure count = %+v, want 1", c)
	}
}
