package heartbeat

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
)

// TestPeerFilesAreFetchedConcurrently serves one peer whose trace requests
// are held until the host's whole cap (HTTP/1.1 here: 4) is in flight; a
// poll that fetched one file at a time would never fill it.
func TestPeerFilesAreFetchedConcurrently(t *testing.T) {
	const traces = 12
	files := map[string]string{}
	m := manifest.Manifest{Agent: "busy", Sequence: traces}
	for seq := 1; seq <= traces; seq++ {
		name := fmt.Sprintf("traces/%03d.md", seq)
		files[name] = fmt.Sprintf("# Trace %d\n\n## Work\n\nDone %d.\n", seq, seq)
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes([]byte(files[name])), File: name, Type: "knowledge", Status: "validated"})
	}
	body := m.Format()
	var mu sync.Mutex
	inFlight, maxInFlight := 0, 0
	full := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/")
		f, ok := files[p]
		switch {
		case p == "MANIFEST.md":
			w.Write(body)
			return
		case !ok:
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		inFlight++
		maxInFlight = max(maxInFlight, inFlight)
		if inFlight == fetch.DefaultMaxConnsPerHost {
			select {
			case <-full:
			default:
				close(full)
			}
		}
		mu.Unlock()
		<-full
		mu.Lock()
		inFlight--
		mu.Unlock()
		fmt.Fprint(w, f)
	}))
	defer srv.Close()
	dir := newNode(t, [][2]string{{"busy", srv.URL + "/"}}, "")
	sum := beat(t, dir, testNow)
	if sum.NewTraces != traces || sum.PeersFailed != 0 {
		t.Fatalf("summary %+v, want %d new traces and no failure", sum, traces)
	}
	if maxInFlight != fetch.DefaultMaxConnsPerHost {
		t.Errorf("%d of the peer's files in flight at most, want the host's cap %d", maxInFlight, fetch.DefaultMaxConnsPerHost)
	}
}
