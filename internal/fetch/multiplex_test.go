package fetch

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// gate is a handler that holds every request until released, and records
// how many were in flight at most, on which connections and protocols.
type gate struct {
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	conns       map[string]bool // remote addresses seen
	protos      map[string]bool
	arrived     chan struct{}
	release     chan struct{}
}

func newGate(n int) *gate {
	return &gate{conns: map[string]bool{}, protos: map[string]bool{},
		arrived: make(chan struct{}, n), release: make(chan struct{})}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.inFlight++
	g.maxInFlight = max(g.maxInFlight, g.inFlight)
	g.conns[r.RemoteAddr] = true
	g.protos[r.Proto] = true
	g.mu.Unlock()
	g.arrived <- struct{}{}
	<-g.release
	g.mu.Lock()
	g.inFlight--
	g.mu.Unlock()
	w.Write([]byte("ok"))
}

// reset forgets what the gate saw so far.
func (g *gate) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.maxInFlight = 0
	clear(g.conns)
	clear(g.protos)
}

// tlsPeer starts g behind a loopback TLS server, speaking HTTP/2 when h2,
// and returns it with a pool that trusts its certificate.
func tlsPeer(t *testing.T, g *gate, h2 bool) (*httptest.Server, *x509.CertPool) {
	t.Helper()
	srv := httptest.NewUnstartedServer(g)
	srv.EnableHTTP2 = h2
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return srv, pool
}

// fetchAll gets n distinct files from srv at once, as a peer's new files
// and the other peers on its host do, and lets them through in waves:
// first waits until cap requests are in flight (the host is full: any
// request over the cap would be arriving too), then releases them one by
// one.
func fetchAll(t *testing.T, c *Client, srv *httptest.Server, g *gate, n, cap int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := c.Get(context.Background(), Request{URL: fmt.Sprintf("%s/agent/traces/%03d.md", srv.URL, i)})
			errs <- err
		})
	}
	for range cap {
		<-g.arrived
	}
	for i := range n {
		g.release <- struct{}{}
		if i+cap < n {
			<-g.arrived
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestHTTP2HostGetsMoreStreamsOnOneConnection(t *testing.T) {
	const fetches = 40
	g := newGate(fetches)
	srv, pool := tlsPeer(t, g, true)
	c := newTestClient(newFakeClock(), func(o *Options) {
		o.IgnoreRobots = true
		o.rootCAs = pool
	})
	// The first answer tells the client the host speaks HTTP/2; until then
	// it holds to the HTTP/1.1 cap.
	go func() { <-g.arrived; g.release <- struct{}{} }()
	if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/agent/MANIFEST.md"}); err != nil {
		t.Fatal(err)
	}
	g.reset()
	fetchAll(t, c, srv, g, fetches, DefaultMaxStreamsPerHost)
	if g.maxInFlight != DefaultMaxStreamsPerHost {
		t.Errorf("%d requests in flight at most, want the stream cap %d", g.maxInFlight, DefaultMaxStreamsPerHost)
	}
	if len(g.conns) != 1 || !g.protos["HTTP/2.0"] || len(g.protos) != 1 {
		t.Errorf("requests came over connections %v with protocols %v, want one HTTP/2 connection", g.conns, g.protos)
	}
}

func TestHTTP1HostOverTLSStaysAtTheConnectionCap(t *testing.T) {
	const fetches = 20
	g := newGate(fetches)
	srv, pool := tlsPeer(t, g, false)
	c := newTestClient(newFakeClock(), func(o *Options) {
		o.IgnoreRobots = true
		o.rootCAs = pool
	})
	fetchAll(t, c, srv, g, fetches, DefaultMaxConnsPerHost)
	if g.maxInFlight != DefaultMaxConnsPerHost {
		t.Errorf("%d requests in flight at most, want the connection cap %d", g.maxInFlight, DefaultMaxConnsPerHost)
	}
	if len(g.conns) > DefaultMaxConnsPerHost || !g.protos["HTTP/1.1"] || len(g.protos) != 1 {
		t.Errorf("requests came over connections %v with protocols %v, want at most %d HTTP/1.1 connections", g.conns, g.protos, DefaultMaxConnsPerHost)
	}
}

func TestStreamCapIsConfigurable(t *testing.T) {
	const fetches, streams = 20, 6
	g := newGate(fetches + 1)
	srv, pool := tlsPeer(t, g, true)
	c := newTestClient(newFakeClock(), func(o *Options) {
		o.IgnoreRobots = true
		o.MaxStreamsPerHost = streams
		o.rootCAs = pool
	})
	go func() { <-g.arrived; g.release <- struct{}{} }()
	if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/agent/MANIFEST.md"}); err != nil {
		t.Fatal(err)
	}
	g.reset()
	fetchAll(t, c, srv, g, fetches, streams)
	if g.maxInFlight != streams {
		t.Errorf("%d requests in flight at most, want %d", g.maxInFlight, streams)
	}
}

func TestUntrustedCertificateIsRefused(t *testing.T) {
	g := newGate(1)
	srv, _ := tlsPeer(t, g, true)
	c := newTestClient(newFakeClock(), func(o *Options) { o.IgnoreRobots = true; o.MaxRetries = -1 })
	_, err := c.Get(context.Background(), Request{URL: srv.URL + "/agent/MANIFEST.md"})
	wantKind(t, err, KindNetwork)
}
