package relay

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/translog"
)

// site serves files from memory under URL, each with an ETag, and
// counts the requests and body bytes it served.
type site struct {
	srv      *httptest.Server
	mu       sync.Mutex
	files    map[string][]byte // by path under the server's root
	requests map[string]int    // by first path segment
	bytes    map[string]int
}

func newSite(t *testing.T) *site {
	s := &site{files: map[string][]byte{}, requests: map[string]int{}, bytes: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(r.URL.Path, "/")
	top, _, _ := strings.Cut(p, "/")
	s.requests[top]++
	data, ok := s.files[p]
	if !ok {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256(data)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	s.bytes[top] += len(data)
	w.Write(data)
}

// put replaces the files under dir with files (by path under dir).
func (s *site) put(dir string, files map[string][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.files {
		if strings.HasPrefix(p, dir+"/") {
			delete(s.files, p)
		}
	}
	for p, data := range files {
		s.files[dir+"/"+p] = data
	}
}

// counts returns and resets the requests and bytes served under top.
func (s *site) counts(top string) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, b := s.requests[top], s.bytes[top]
	s.requests[top], s.bytes[top] = 0, 0
	return r, b
}

func (s *site) url(dir string) string { return s.srv.URL + "/" + dir + "/" }

func testClient() *fetch.Client {
	return fetch.New(fetch.Options{UserAgent: "relay-test", AllowPrivate: true, Timeout: 10 * time.Second})
}

// keyFor makes a key pair named for the base URL u.
func keyFor(t testing.TB, u string) (skey, vkey string) {
	t.Helper()
	origin, err := translog.Origin(u)
	if err != nil {
		t.Fatal(err)
	}
	skey, vkey, err = translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}

// agent is an agent's key and its checkpoints, of a log of Size entries
// whose root is made up: a relay and a node check signatures only.
type agent struct {
	url, skey, vkey string
	size            int64
}

func newAgent(t testing.TB, u string) *agent {
	skey, vkey := keyFor(t, u)
	return &agent{url: u, skey: skey, vkey: vkey, size: 1}
}

func (a *agent) root() tlog.Hash { return tlog.RecordHash(fmt.Appendf(nil, "%s %d", a.url, a.size)) }

func (a *agent) checkpoint(t testing.TB) []byte {
	t.Helper()
	origin, _ := translog.Origin(a.url)
	cp, err := translog.Sign(translog.Checkpoint{Origin: origin, Size: a.size, Root: a.root()}, a.skey)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func (a *agent) entry(t testing.TB) Entry { return Entry{Agent: a.url, Checkpoint: a.checkpoint(t)} }

// pin records what a node holds of a after a direct read.
func (a *agent) pin(pins *logpin.Pins) {
	r := a.root()
	pins.Put(&logpin.Pin{URL: a.url, Key: a.vkey, Accepted: []logpin.Tree{{Size: a.size, Root: b64(r[:])}}})
}

func newPins(t testing.TB) *logpin.Pins {
	pins, err := logpin.Load(filepath.Join(t.TempDir(), "log-pins.json"))
	if err != nil {
		t.Fatal(err)
	}
	return pins
}

// publisher is a relay's log, published on a site under dir.
type publisher struct {
	site *site
	dir  string
	skey string
	rel  Relay
	log  *Log
}

func newPublisher(t testing.TB, s *site, dir string) *publisher {
	skey, vkey := keyFor(t, s.url(dir))
	return &publisher{site: s, dir: dir, skey: skey, rel: Relay{URL: s.url(dir), Key: vkey}, log: &Log{}}
}

// add appends entries and publishes the log.
func (p *publisher) add(t testing.TB, es ...Entry) map[string][]byte {
	t.Helper()
	files, err := p.log.Extend(es, p.skey)
	if err != nil {
		t.Fatal(err)
	}
	logFiles := map[string][]byte{}
	for name, data := range files {
		logFiles["log/"+name] = data
	}
	p.site.put(p.dir, logFiles)
	return files
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// replaceLine returns s with its line i (from 0) replaced by line.
func replaceLine(s string, i int, line string) string {
	lines := strings.Split(s, "\n")
	lines[i] = line
	return strings.Join(lines, "\n")
}

func isBundlePath(p string) bool { return strings.HasPrefix(p, "tile/entries/") }

// withFile is the log files with name replaced by data, as a site holds
// them.
func withFile(files map[string][]byte, name string, data []byte) map[string][]byte {
	out := map[string][]byte{}
	for n, d := range files {
		out["log/"+n] = d
	}
	out["log/"+name] = data
	return out
}

func tlogRecord(s string) tlog.Hash { return tlog.RecordHash([]byte(s)) }

// alter changes in place the file at path under dir.
func (s *site) alter(dir, path string, change func([]byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change(s.files[dir+"/"+path])
}
