package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakePeer is an agent on loopback that publishes traces when told, and
// fails every request while failing is set.
type fakePeer struct {
	name     string
	srv      *httptest.Server
	mu       sync.Mutex
	traces   []string // bodies, seq = index + 1
	failing  bool
	requests int
}

func newPeer(t *testing.T, name string, traces int) *fakePeer {
	t.Helper()
	p := &fakePeer{name: name}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	for range traces {
		p.publish()
	}
	return p
}

func (p *fakePeer) url() string { return p.srv.URL + "/" }

func (p *fakePeer) publish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.traces) + 1
	p.traces = append(p.traces, fmt.Sprintf("# %s's trace %d\n\nWhat %s learned on day %d.\n", p.name, n, p.name, n))
}

func (p *fakePeer) setFailing(f bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failing = f
}

func (p *fakePeer) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests
}

func (p *fakePeer) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests++
	if p.failing {
		// 403 is never retried, so a failing tick does not wait out the
		// fetcher's backoff between retries.
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	switch path := strings.TrimPrefix(r.URL.Path, "/"); {
	case path == "MANIFEST.md":
		fmt.Fprint(w, p.manifest())
	case strings.HasPrefix(path, "traces/"):
		var n int
		if _, err := fmt.Sscanf(path, "traces/%03d.md", &n); err != nil || n < 1 || n > len(p.traces) {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, p.traces[n-1])
	default:
		http.NotFound(w, r)
	}
}

func (p *fakePeer) manifest() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# MANIFEST\n\nagent: %s\nurl: %s\nupdated: 2026-03-15T12:00:00Z\nsequence: %d\n\n## Traces\n\n", p.name, p.url(), len(p.traces))
	b.WriteString("| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n")
	for i := len(p.traces) - 1; i >= 0; i-- {
		sum := sha256.Sum256([]byte(p.traces[i]))
		fmt.Fprintf(&b, "| %d | sha256:%s | traces/%03d.md | knowledge | pending | 2026-03-15T12:00:00Z |\n", i+1, hex.EncodeToString(sum[:]), i+1)
	}
	return b.String()
}
