package heartbeat

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// fakePeer is a peer on httptest whose routes a test sets path by path,
// counting the requests each path gets.
type fakePeer struct {
	*httptest.Server
	mu     sync.Mutex
	routes map[string]http.HandlerFunc
	hits   map[string]int
}

func newFakePeer(t testing.TB) *fakePeer {
	t.Helper()
	p := &fakePeer{routes: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits[r.URL.Path]++
		h := p.routes[r.URL.Path]
		p.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// handle sets what path answers.
func (p *fakePeer) handle(path string, h http.HandlerFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.routes[path] = h
}

// serve makes path answer body.
func (p *fakePeer) serve(path string, body []byte) {
	p.handle(path, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
}

func (p *fakePeer) hitsOf(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits[path]
}

// publish serves a manifest under base listing files (name → content) in
// the given order as seqs 1, 2, …, and the files themselves.
func (p *fakePeer) publish(base string, names []string, files map[string]string) {
	m := manifest.Manifest{Agent: "peer", Sequence: len(names)}
	for i, name := range names {
		m.Entries = append(m.Entries, manifest.Entry{Seq: i + 1, Hash: manifest.HashBytes([]byte(files[name])), File: name, Type: "knowledge", Status: "pending"})
		p.serve(base+name, []byte(files[name]))
	}
	p.serve(base+"MANIFEST.md", m.Format())
}

func TestRedirectOutsideThePeersBaseIsRefused(t *testing.T) {
	p := newFakePeer(t)
	body := "# Borrowed\n\n## Work\n\nSomeone else's file.\n"
	p.publish("/b/t/", []string{"traces/001-x.md"}, map[string]string{"traces/001-x.md": body})
	// The file redirects to another path of the host that serves the very
	// bytes the manifest lists: only the base path keeps them out.
	p.handle("/b/t/traces/001-x.md", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/outside/x.md", http.StatusFound)
	})
	p.serve("/outside/x.md", []byte(body))
	dir := newNode(t, [][2]string{{"peer", p.URL + "/b/t/"}}, "")

	sum := beat(t, dir, testNow)
	if p.hitsOf("/outside/x.md") != 0 {
		t.Error("the file outside the base was fetched")
	}
	if sum.Verified != 0 || sum.Rejected != 1 {
		t.Errorf("verified %d, rejected %d; want 0 and 1", sum.Verified, sum.Rejected)
	}
	if n := len(loadLedger(t, dir).Traces); n != 0 {
		t.Errorf("ledger holds %d traces, want none", n)
	}
	if c := loadState(t, dir).Cursors[p.URL+"/b/t/"]; c == nil || len(c.Retry) != 0 || c.LastSeenSeq != 1 {
		t.Errorf("cursor %+v: want seq 1 read and nothing to retry", c)
	}
	beat(t, dir, testNow.Add(cursorStep))
	if got := p.hitsOf("/b/t/traces/001-x.md"); got != 1 {
		t.Errorf("the refused file was asked %d times, want once", got)
	}
}

// cursorStep is the time between two heartbeats of a test.
const cursorStep = 30 * time.Minute
