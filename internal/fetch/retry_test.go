package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

func TestClientErrorsAreNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		status int
		want   Kind
	}{
		{"400 bad request", 400, KindClient},
		{"401 unauthorized", 401, KindClient},
		{"403 forbidden without rate-limit headers", 403, KindClient},
		{"404 is not found", 404, KindNotFound},
		{"410 is gone", 410, KindGone},
		{"451 unavailable for legal reasons", 451, KindClient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPeer(t, serve(tt.status, "no"))
			clk := newFakeClock()
			c := newTestClient(clk, func(o *Options) { o.IgnoreRobots = true })
			_, err := c.Get(context.Background(), Request{URL: p.URL + "/x"})
			e := wantKind(t, err, tt.want)
			if e.Status != tt.status {
				t.Errorf("Status = %d, want %d", e.Status, tt.status)
			}
			if p.Hits("/x") != 1 || len(clk.Sleeps()) != 0 {
				t.Errorf("%d requests, sleeps %v: a 4xx must not be retried", p.Hits("/x"), clk.Sleeps())
			}
			if got := c.Stats().Failed[tt.want]; got != 1 {
				t.Errorf("requests_failed[%s] = %d, want 1", tt.want, got)
			}
		})
	}
}

func TestServerErrorsAreRetriedWithBackoff(t *testing.T) {
	tests := []struct {
		name       string
		failures   int // 5xx answers before a 200
		maxRetries int
		wantHits   int
		wantSleeps []time.Duration
		wantKind   Kind
	}{
		{"recovers on the second retry", 2, 0, 3, []time.Duration{time.Second, 2 * time.Second}, ""},
		{"recovers on the first retry", 1, 0, 2, []time.Duration{time.Second}, ""},
		{"gives up after two retries", 5, 0, 3, []time.Duration{time.Second, 2 * time.Second}, KindServer},
		{"no retries when disabled", 5, -1, 1, nil, KindServer},
		{"doubles up to the cap", 20, 10, 11, []time.Duration{1e9, 2e9, 4e9, 8e9, 16e9, 32e9, 64e9, 128e9, 256e9, 256e9}, KindServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			p := newPeer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if int(n.Add(1)) <= tt.failures {
					w.WriteHeader(http.StatusBadGateway)
					return
				}
				w.Write([]byte("ok"))
			}))
			clk := newFakeClock()
			c := newTestClient(clk, func(o *Options) {
				o.IgnoreRobots = true
				o.MaxRetries = tt.maxRetries
			})
			_, err := c.Get(context.Background(), Request{URL: p.URL + "/m"})
			if tt.wantKind == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantKind != "" {
				wantKind(t, err, tt.wantKind)
			}
			if p.Hits("/m") != tt.wantHits {
				t.Errorf("%d requests, want %d", p.Hits("/m"), tt.wantHits)
			}
			if !reflect.DeepEqual(clk.Sleeps(), tt.wantSleeps) {
				t.Errorf("backoff sleeps = %v, want %v", clk.Sleeps(), tt.wantSleeps)
			}
		})
	}
}

func TestBackoffNeverOutlastsTheDeadline(t *testing.T) {
	p := newPeer(t, serve(500, "down"))
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) {
		o.IgnoreRobots = true
		o.MaxRetries = 10
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Get(ctx, Request{URL: p.URL + "/m"})
	wantKind(t, err, KindServer)
	want := []time.Duration{1e9, 2e9, 4e9, 8e9, 16e9} // 32s would pass the 30s deadline
	if !reflect.DeepEqual(clk.Sleeps(), want) {
		t.Errorf("sleeps = %v, want %v", clk.Sleeps(), want)
	}
}

func TestBrokenConnectionsAreRetried(t *testing.T) {
	p := newPeer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // no answer at all: the connection breaks
		}
	}))
	url := p.URL + "/m"
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) { o.IgnoreRobots = true })
	_, err := c.Get(context.Background(), Request{URL: url})
	wantKind(t, err, KindNetwork)
	if len(clk.Sleeps()) != 2 {
		t.Errorf("sleeps = %v, want two backoffs", clk.Sleeps())
	}
	if s := c.Stats(); s.Requests != 3 || s.Retries != 2 || s.Failed[KindNetwork] != 1 {
		t.Errorf("stats = %+v", s)
	}
}

func TestBackoffFollowsSeed004(t *testing.T) {
	tests := []struct {
		name   string
		retry  int
		jitter float64
		want   time.Duration
	}{
		{"first retry waits the base", 0, 1, time.Second},
		{"doubles per retry", 3, 1, 8 * time.Second},
		{"low jitter shortens", 1, 0.8, 1600 * time.Millisecond},
		{"high jitter lengthens", 1, 1.2, 2400 * time.Millisecond},
		{"capped at five minutes", 8, 1.2, 5 * time.Minute},
		{"exponent capped", 50, 1, 256 * time.Second},
		{"negative retry is the first", -3, 1, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := backoff(tt.retry, tt.jitter); got != tt.want {
				t.Errorf("backoff(%d, %v) = %v, want %v", tt.retry, tt.jitter, got, tt.want)
			}
		})
	}
}

func TestDefaultJitterStaysInSeedRange(t *testing.T) {
	c := New(Options{})
	for range 1000 {
		if j := c.jitter(); j < jitterMin || j >= jitterMax {
			t.Fatalf("jitter %v outside [%v, %v)", j, jitterMin, jitterMax)
		}
	}
}

func TestCanceledContextStopsTheRetries(t *testing.T) {
	p := newPeer(t, serve(500, "down"))
	ctx, cancel := context.WithCancel(context.Background())
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) {
		o.IgnoreRobots = true
		o.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	})
	_, err := c.Get(ctx, Request{URL: p.URL + "/m"})
	wantKind(t, err, KindCanceled)
	if p.Hits("/m") != 1 {
		t.Errorf("%d requests after cancel", p.Hits("/m"))
	}
}

func TestRefusedConnectionIsNotRetried(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c := newTestClient(newFakeClock(), nil) // default retries
	_, err := c.Get(context.Background(), Request{URL: base + "/MANIFEST.md"})
	wantKind(t, err, KindNetwork)
	if n := c.Stats().Retries; n != 0 {
		t.Errorf("a refused connection was retried %d times, want none", n)
	}
}
