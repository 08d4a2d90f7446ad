package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

const testUA = "meshnode/test (+https://agent.example/traces/; agent tester)"

// fakeClock is Options.Now and Options.Sleep for tests: sleeping records
// the duration and moves the clock, so nothing waits for real.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sleeps = append(f.sleeps, d)
	f.now = f.now.Add(d)
	return ctx.Err()
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

func (f *fakeClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// newTestClient returns a client on the fake clock with jitter fixed at 1,
// allowed to reach 127.0.0.1; edit adjusts the options first.
func newTestClient(clk *fakeClock, edit func(*Options)) *Client {
	o := Options{UserAgent: testUA, AllowPrivate: true, Now: clk.Now, Sleep: clk.Sleep}
	if edit != nil {
		edit(&o)
	}
	c := New(o)
	c.jitter = func() float64 { return 1 }
	return c
}

// peer is an httptest server that counts requests by path.
type peer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

// newPeer serves h on 127.0.0.1. Paths h does not handle (robots.txt
// included) answer 404 when h is a ServeMux.
func newPeer(t testing.TB, h http.Handler) *peer {
	t.Helper()
	p := &peer{hits: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits[r.URL.Path]++
		p.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *peer) Hits(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits[path]
}

// serve answers every request with status and body.
func serve(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

// mux builds a ServeMux from path → handler pairs.
func mux(routes map[string]http.Handler) *http.ServeMux {
	m := http.NewServeMux()
	for p, h := range routes {
		m.Handle(p, h)
	}
	return m
}

func wantKind(t *testing.T, err error, k Kind) *Error {
	t.Helper()
	if !IsKind(err, k) {
		t.Fatalf("error = %v (kind %q), want kind %q", err, KindOf(err), k)
	}
	var fe *Error
	if e, ok := err.(*Error); ok {
		fe = e
	}
	return fe
}
