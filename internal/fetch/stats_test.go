package fetch

import (
	"context"
	"net/http"
	"testing"
)

func TestStatsCountSeed004Metrics(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/ok":      serve(200, "12345"),
		"/missing": serve(404, ""),
		"/flaky":   serve(500, ""),
		"/limited": serve(429, "", "Retry-After", "600"),
	}))
	c := newTestClient(newFakeClock(), func(o *Options) { o.MaxRetries = 1 })
	for _, path := range []string{"/ok", "/ok", "/missing", "/flaky", "/limited", "/ok"} {
		c.Get(context.Background(), Request{URL: p.URL + path})
	}
	s := c.Stats()
	// robots.txt (404), ok, ok, missing, flaky twice, limited; the last /ok
	// fails fast in the cooldown without a request.
	if s.Requests != 7 {
		t.Errorf("requests_total = %d, want 7", s.Requests)
	}
	want := map[Kind]int64{KindNotFound: 1, KindServer: 1, KindRateLimited: 2}
	if len(s.Failed) != len(want) {
		t.Errorf("requests_failed = %v, want %v", s.Failed, want)
	}
	for k, n := range want {
		if s.Failed[k] != n {
			t.Errorf("requests_failed[%s] = %d, want %d", k, s.Failed[k], n)
		}
	}
	if s.RateLimitHits != 1 || s.Retries != 1 || s.Bytes != 10 {
		t.Errorf("rate_limit_hits %d, retries %d, bytes %d; want 1, 1, 10", s.RateLimitHits, s.Retries, s.Bytes)
	}
	s.Failed[KindGone] = 99
	if c.Stats().Failed[KindGone] != 0 {
		t.Error("Stats() shares its map with the client")
	}
}
