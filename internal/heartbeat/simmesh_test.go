package heartbeat

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/state"
)

// simMesh is a mesh of peers under /pN/ on one loopback server whose
// publishing the test drives on a simulated clock. It answers conditional
// requests with 304, as GitHub Pages does, and records when each trace was
// first fetched.
type simMesh struct {
	*httptest.Server
	mu        sync.Mutex
	now       time.Time // the simulated time, set by the driver
	peers     []*simPeer
	manifests int // MANIFEST.md requests
}

type simPeer struct {
	m         manifest.Manifest
	body      []byte
	files     map[string][]byte
	published map[string]time.Time // file → when it was published
	fetched   map[string]time.Time // file → when the node first fetched it
}

func newSimMesh(t testing.TB, peers int) *simMesh {
	t.Helper()
	s := &simMesh{}
	for i := range peers {
		p := &simPeer{m: manifest.Manifest{Agent: fmt.Sprintf("p%d", i)}, files: map[string][]byte{},
			published: map[string]time.Time{}, fetched: map[string]time.Time{}}
		p.add(fmt.Sprintf("# First of p%d\n\n## Work\n\nA start.\n", i), time.Time{})
		s.peers = append(s.peers, p)
	}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

// add publishes one trace at now.
func (p *simPeer) add(content string, now time.Time) {
	seq := manifest.Seq(len(p.m.Entries) + 1)
	name := fmt.Sprintf("traces/%04d.md", seq)
	p.files[name] = []byte(content)
	p.m.Sequence = seq
	p.m.Entries = append(p.m.Entries, manifest.Entry{Seq: seq, Hash: manifest.HashBytes([]byte(content)), File: name, Type: "knowledge", Status: "validated"})
	p.body = p.m.Format()
	p.published[name] = now
}

// publish adds n traces to peer i at the mesh's current time.
func (s *simMesh) publish(i, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peers[i]
	for range n {
		p.add(fmt.Sprintf("# Trace %d of p%d\n\n## Work\n\nPublished at %s.\n", len(p.m.Entries)+1, i, s.now.Format(time.RFC3339)), s.now)
	}
}

// publishPending has each peer publish one more trace, pending.
func (s *simMesh) publishPending() {
	for i := range s.peers {
		s.publish(i, 1)
	}
	s.lastPending()
}

// lastPending marks each peer's last trace pending, so that a node with
// standing scores it.
func (s *simMesh) lastPending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.peers {
		p.m.Entries[len(p.m.Entries)-1].Status = "pending"
		p.body = p.m.Format()
	}
}

func (s *simMesh) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/p")
	idx, file, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(idx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || err != nil || i < 0 || i >= len(s.peers) {
		http.NotFound(w, r)
		return
	}
	p := s.peers[i]
	if file == "MANIFEST.md" {
		s.manifests++
		etag := fmt.Sprintf(`"%d"`, p.m.Sequence)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Write(p.body)
		return
	}
	body, ok := p.files[file]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if _, seen := p.fetched[file]; !seen {
		p.fetched[file] = s.now
	}
	w.Write(body)
}

func (s *simMesh) setNow(now time.Time) {
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
}

func (s *simMesh) manifestRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.manifests
}

func (s *simMesh) roster() [][2]string {
	var out [][2]string
	for i, p := range s.peers {
		out = append(out, [2]string{p.m.Agent, fmt.Sprintf("%s/p%d/", s.URL, i)})
	}
	return out
}

// week is a simulated stretch of heartbeats every 30 minutes over a mesh
// where some peers publish one trace a day, each at its own time of day,
// between two heartbeats.
type week struct {
	peers, publishers int
	days              int
	config            string // extra mesh.yaml lines
}

// weekResult is what a simulated week measured.
type weekResult struct {
	heartbeats int
	requests   int           // MANIFEST.md requests
	late       []string      // traces picked up later than their peer's interval allowed
	maxDelay   time.Duration // longest wait from publication to fetch
	missed     int           // traces not fetched within their interval by the end
	pending    int           // traces published too late in the week to be due yet
}

// run drives the week: publish what is due, run a heartbeat, note each
// peer's interval as the heartbeat left it (the interval a trace published
// before the next poll must be picked up within).
func (w week) run(t testing.TB) weekResult {
	t.Helper()
	mesh := newSimMesh(t, w.peers)
	dir := newNode(t, mesh.roster(), "gossip:\n  enabled: false\n"+w.config)
	start := testNow
	interval := make([]time.Duration, w.peers)
	allowed := map[string]time.Duration{} // peer/file → the interval when published
	var res weekResult
	beats := w.days * 48
	for b := range beats {
		now := start.Add(time.Duration(b) * presence.Heartbeat)
		// Publishers publish once a day, 7 minutes past their own half hour.
		for i := range w.publishers {
			at := start.Add(time.Duration(i%48)*presence.Heartbeat - 23*time.Minute)
			for d := 1; d <= w.days; d++ {
				tp := at.Add(time.Duration(d) * 24 * time.Hour)
				if tp.After(now.Add(-presence.Heartbeat)) && !tp.After(now) {
					mesh.setNow(tp)
					mesh.publish(i, 1)
					allowed[fmt.Sprintf("p%d/traces/%04d.md", i, len(mesh.peers[i].m.Entries))] = interval[i]
				}
			}
		}
		mesh.setNow(now)
		beat(t, dir, now)
		st := loadState(t, dir)
		for i := range w.peers {
			interval[i] = intervalOf(st.Cursors[fmt.Sprintf("%s/p%d/", mesh.URL, i)], now)
		}
	}
	res.heartbeats = beats
	end := start.Add(time.Duration(beats-1) * presence.Heartbeat)
	res.requests = mesh.manifestRequests()
	for i, p := range mesh.peers {
		for file, tp := range p.published {
			if tp.IsZero() {
				continue
			}
			key := fmt.Sprintf("p%d/%s", i, file)
			got, ok := p.fetched[file]
			switch {
			case !ok && tp.Add(allowed[key]).After(end):
				res.pending++
				continue
			case !ok:
				res.missed++
				continue
			}
			delay := got.Sub(tp)
			res.maxDelay = max(res.maxDelay, delay)
			if delay > allowed[key] {
				res.late = append(res.late, fmt.Sprintf("%s published %s, fetched %s, interval %v", key, tp.Format(time.Kitchen), got.Format(time.Kitchen), allowed[key]))
			}
		}
	}
	return res
}

// intervalOf is a cursor's interval at now: a trace published before the
// next heartbeat must be picked up within it.
func intervalOf(c *state.Cursor, now time.Time) time.Duration {
	if c == nil || c.IntervalAt(now) == 0 {
		return presence.Heartbeat
	}
	return c.IntervalAt(now)
}
