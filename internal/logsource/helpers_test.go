package logsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

var testNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// peerHost serves one peer's files under /a/, with ETags, and counts
// the requests by path.
type peerHost struct {
	mu       sync.Mutex
	files    map[string][]byte // by path under the base URL
	requests map[string]int
	// logBytes counts the bytes of log tiles and bundles served (the
	// checkpoint aside), for the byte budget.
	logBytes int64
	// down answers every request with 500: the host is down.
	down bool
	srv  *httptest.Server
	skey string
	vkey string
}

func newPeerHost(t *testing.T) *peerHost {
	h := &peerHost{files: map[string][]byte{}, requests: map[string]int{}}
	h.srv = httptest.NewServer(h)
	t.Cleanup(h.srv.Close)
	origin, err := translog.Origin(h.base())
	if err != nil {
		t.Fatal(err)
	}
	if h.skey, h.vkey, err = translog.GenerateKey(origin); err != nil {
		t.Fatal(err)
	}
	h.set(node.IdentityFile, []byte("# IDENTITY\n\nname: a\n"+translog.IdentityKey+": "+h.vkey+"\n"))
	return h
}

func (h *peerHost) base() string { return h.srv.URL + "/a/" }

func (h *peerHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/a/")
	h.requests[path]++
	if h.down {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	body, ok := h.files[path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if strings.HasPrefix(path, node.LogDir+"/tile/") {
		h.logBytes += int64(len(body))
	}
	w.Write(body)
}

// tileBytes returns the bytes of log tiles and bundles served since the
// last call, and forgets them.
func (h *peerHost) tileBytes() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.logBytes
	h.logBytes = 0
	return n
}

func (h *peerHost) set(path string, body []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if body == nil {
		delete(h.files, path)
		return
	}
	h.files[path] = body
}

func (h *peerHost) get(path string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.files[path]
}

// total returns the requests made since the last call, and forgets them.
func (h *peerHost) total() (int, map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, by := 0, h.requests
	for _, c := range by {
		n += c
	}
	h.requests = map[string]int{}
	return n, by
}

// publish serves the log of entries, signed with skey, as node.WriteLog
// leaves it: the files of the new tree and nothing else under log/.
func (h *peerHost) publish(t *testing.T, entries []translog.Entry, skey string) map[string][]byte {
	t.Helper()
	files, err := translog.Update(nil, entries, skey)
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	for p := range h.files {
		if strings.HasPrefix(p, node.LogDir+"/") {
			delete(h.files, p)
		}
	}
	for p, b := range files {
		h.files[node.LogDir+"/"+p] = b
	}
	h.mu.Unlock()
	return files
}

func entriesN(from, n int, tag string) []translog.Entry {
	var out []translog.Entry
	for i := from; i < from+n; i++ {
		out = append(out, translog.Entry{Seq: manifest.Seq(i), Hash: manifest.HashBytes(fmt.Appendf(nil, "%s %d", tag, i)),
			File: fmt.Sprintf("traces/t-%04d.md", i), Type: "knowledge", Submitted: time.Date(2026, 3, 1, 0, 0, i, 0, time.UTC)})
	}
	return out
}

// fakeManifest is the source of peers without a log: it counts its reads
// and lists one entry; with newest set, it dates the cursor's newest entry
// then, as the manifest source does with its rows' newest submitted time.
type fakeManifest struct {
	reads  int
	newest time.Time
}

func (f *fakeManifest) Read(_ context.Context, _ source.Peer, c *state.Cursor) (*source.Listing, error) {
	f.reads++
	if !f.newest.IsZero() {
		c.NewestEntry = f.newest
	}
	m := &manifest.Manifest{Sequence: 1, Entries: []manifest.Entry{{Seq: 1, Hash: manifest.HashBytes([]byte("m")), File: "traces/m.md"}}}
	return &source.Listing{Manifest: m, Requests: 1, RateLeft: -1}, nil
}

// reader is a Source over one peer, with its pins in a temporary node.
type reader struct {
	src  *Source
	man  *fakeManifest
	peer source.Peer
	cur  state.Cursor
	dir  string
	logs []string
}

func newReader(t *testing.T, h *peerHost) *reader {
	r := &reader{man: &fakeManifest{}, peer: source.Peer{Name: "a", URL: h.base()}, dir: t.TempDir()}
	pins, err := logpin.Load(filepath.Join(r.dir, node.LogPinsFile))
	if err != nil {
		t.Fatal(err)
	}
	r.src = &Source{
		Client:   fetch.New(fetch.Options{AllowPrivate: true, IgnoreRobots: true, MaxRetries: -1}),
		Manifest: r.man, Pins: pins, Now: testNow,
		Logf: func(f string, a ...any) { r.logs = append(r.logs, fmt.Sprintf(f, a...)) },
	}
	return r
}

func (r *reader) read(t *testing.T) *source.Listing {
	t.Helper()
	l, err := r.src.Read(context.Background(), r.peer, &r.cur)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if l.Manifest != nil {
		r.cur.LastSeenSeq = l.Manifest.Sequence
	}
	return l
}

func (r *reader) pin() *logpin.Pin { return r.src.Pins.Get(r.peer.URL) }

func seqsOf(l *source.Listing) []manifest.Seq {
	if l.Manifest == nil {
		return nil
	}
	var out []manifest.Seq
	for _, e := range l.Manifest.Entries {
		out = append(out, e.Seq)
	}
	return out
}

// setDown takes h down, or back up.
func (h *peerHost) setDown(down bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.down = down
}

// mirror serves a copy of every file origin serves now.
func (h *peerHost) mirror(origin *peerHost) {
	origin.mu.Lock()
	files := maps.Clone(origin.files)
	origin.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files = files
}
