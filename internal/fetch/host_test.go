package fetch

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestConcurrentRequestsPerHostAreCapped(t *testing.T) {
	const limit, fetches = 3, 24
	var inFlight, maxInFlight atomic.Int32
	arrived := make(chan struct{}, fetches)
	release := make(chan struct{})
	p := newPeer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
		}
		arrived <- struct{}{}
		<-release
		inFlight.Add(-1)
		w.Write([]byte("ok"))
	}))
	c := newTestClient(newFakeClock(), func(o *Options) {
		o.IgnoreRobots = true
		o.MaxConnsPerHost = limit
	})
	var wg sync.WaitGroup
	errs := make(chan error, fetches)
	for i := range fetches {
		wg.Go(func() {
			// Many peers on one host, as the corpus has 12 on mycelnet.ai.
			_, err := c.Get(context.Background(), Request{URL: p.URL + "/agent" + string(rune('a'+i)) + "/MANIFEST.md"})
			errs <- err
		})
	}
	for range limit {
		<-arrived // the host is full: anyone over the cap would be arriving now
	}
	for i := range fetches {
		release <- struct{}{}
		if i+limit < fetches {
			<-arrived
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := maxInFlight.Load(); got > limit {
		t.Errorf("%d requests in flight on one host, cap is %d", got, limit)
	}
}

func TestFixedRatePerHostSpacesRequests(t *testing.T) {
	p := newPeer(t, serve(200, "ok"))
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) {
		o.IgnoreRobots = true
		o.RequestsPerSecond = 2
	})
	for range 4 {
		if _, err := c.Get(context.Background(), Request{URL: p.URL + "/m"}); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}
	if !reflect.DeepEqual(clk.Sleeps(), want) {
		t.Errorf("sleeps = %v, want %v", clk.Sleeps(), want)
	}
}

func TestCrawlDelayPastTheDeadlineIsARateLimit(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/robots.txt": serve(200, "User-agent: *\nCrawl-delay: 30\n"),
		"/":           serve(200, "ok"),
	}))
	clk := newFakeClock()
	c := newTestClient(clk, nil)
	if _, err := c.Get(context.Background(), Request{URL: p.URL + "/a"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.Get(ctx, Request{URL: p.URL + "/b"})
	e := wantKind(t, err, KindRateLimited)
	if want := clk.Now().Add(30 * time.Second); !e.RetryAfter.Equal(want) {
		t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, want)
	}
	if p.Hits("/b") != 0 || len(clk.Sleeps()) != 0 {
		t.Errorf("requested /b %d times after sleeping %v", p.Hits("/b"), clk.Sleeps())
	}
	// The refused request gave its slot back: the next one waits 30s, not 60s.
	if _, err := c.Get(context.Background(), Request{URL: p.URL + "/c"}); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{30 * time.Second}; !reflect.DeepEqual(clk.Sleeps(), want) {
		t.Errorf("sleeps = %v, want %v", clk.Sleeps(), want)
	}
}

func TestHugeCrawlDelayIsCapped(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/robots.txt": serve(200, "User-agent: meshnode\nCrawl-delay: 86400\n"),
		"/":           serve(200, "ok"),
	}))
	clk := newFakeClock()
	c := newTestClient(clk, nil)
	for _, f := range []string{"/a", "/b"} {
		if _, err := c.Get(context.Background(), Request{URL: p.URL + f}); err != nil {
			t.Fatal(err)
		}
	}
	if want := []time.Duration{MaxCrawlDelay}; !reflect.DeepEqual(clk.Sleeps(), want) {
		t.Errorf("sleeps = %v, want %v", clk.Sleeps(), want)
	}
}

func TestSlowHostDoesNotDelayAnotherHost(t *testing.T) {
	stuck, arrived := make(chan struct{}), make(chan struct{}, 1)
	slow := newPeer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	}))
	fast := newPeer(t, serve(200, "ok"))
	t.Cleanup(func() { close(stuck) })
	c := newTestClient(newFakeClock(), func(o *Options) {
		o.IgnoreRobots = true
		o.MaxConnsPerHost = 1
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, Request{URL: slow.URL + "/m"})
		done <- err
	}()
	<-arrived
	// The slow host holds its only slot; the fast host is not queued behind it.
	if _, err := c.Get(context.Background(), Request{URL: fast.URL + "/m"}); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := <-done
	wantKind(t, err, KindCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) = false", err)
	}
}
