package fetch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// TestIdleConnectionsAreKeptForEveryHost has one request in flight on each
// of many hosts at once, then asks every host again: each finds its idle
// connection and none opens another. The pool once held 100 idle
// connections in all, so past 100 hosts it closed connections as they went
// idle, and a heartbeat over 50 hosts at 4 connections each opened a new
// connection for most of its requests.
func TestIdleConnectionsAreKeptForEveryHost(t *testing.T) {
	const hosts = 150
	var opened atomic.Int64
	arrived := make(chan struct{}, hosts)
	release := make(chan struct{})
	var once sync.Once
	held := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/first" {
			arrived <- struct{}{}
			<-release
		}
		w.Write([]byte("ok"))
	}
	var urls []string
	for range hosts {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(held))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				opened.Add(1)
			}
		}
		srv.Start()
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	c := newTestClient(newFakeClock(), func(o *Options) { o.IgnoreRobots = true })
	get := func(u string) error {
		_, err := c.Get(context.Background(), Request{URL: u})
		return err
	}
	errs := make(chan error, hosts)
	for _, u := range urls {
		go func() { errs <- get(u + "/first") }()
	}
	for range hosts {
		<-arrived
	}
	once.Do(func() { close(release) })
	for range hosts {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := opened.Load(); got != hosts {
		t.Fatalf("%d connections for %d requests in flight on %d hosts, want one each", got, hosts, hosts)
	}
	for _, u := range urls {
		if err := get(u + "/again"); err != nil {
			t.Fatal(err)
		}
	}
	if got := opened.Load() - hosts; got != 0 {
		t.Errorf("%d new connections for one more request to each of %d hosts, want 0: each had an idle one", got, hosts)
	}
}
