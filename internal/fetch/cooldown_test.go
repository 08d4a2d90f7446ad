package fetch

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRateLimitSetsAHostCooldown(t *testing.T) {
	clk := newFakeClock()
	now := clk.Now()
	in30m := now.Add(30 * time.Minute)
	tests := []struct {
		name      string
		status    int
		headers   []string
		wantUntil time.Time
	}{
		{"429 with Retry-After seconds", 429, []string{"Retry-After", "120"}, now.Add(120 * time.Second)},
		{"429 with Retry-After date", 429, []string{"Retry-After", in30m.Format(http.TimeFormat)}, in30m},
		{"429 with a date past the cap is clamped", 429, []string{"Retry-After", now.Add(48 * time.Hour).Format(http.TimeFormat)}, now.Add(MaxCooldown)},
		{"429 without Retry-After waits the default", 429, nil, now.Add(DefaultCooldown)},
		{"429 with X-RateLimit-Reset epoch", 429, []string{"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.Add(10*time.Minute).Unix(), 10)}, now.Add(10 * time.Minute)},
		{"503 with Retry-After", 503, []string{"Retry-After", "600"}, now.Add(10 * time.Minute)},
		{"403 with an exhausted X-RateLimit budget", 403, []string{"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "300"}, now.Add(5 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPeer(t, serve(tt.status, "slow down", tt.headers...))
			clk := newFakeClock()
			c := newTestClient(clk, func(o *Options) { o.IgnoreRobots = true })
			_, err := c.Get(context.Background(), Request{URL: p.URL + "/a/MANIFEST.md"})
			e := wantKind(t, err, KindRateLimited)
			if !e.RetryAfter.Equal(tt.wantUntil) {
				t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tt.wantUntil)
			}
			if p.Hits("/a/MANIFEST.md") != 1 || len(clk.Sleeps()) != 0 {
				t.Errorf("%d requests, sleeps %v: a long rate limit must fail fast", p.Hits("/a/MANIFEST.md"), clk.Sleeps())
			}
			_, err = c.Get(context.Background(), Request{URL: p.URL + "/a/MANIFEST.md"})
			wantKind(t, err, KindRateLimited)
			if p.Hits("/a/MANIFEST.md") != 1 {
				t.Errorf("request sent during the cooldown")
			}
			if s := c.Stats(); s.RateLimitHits != 1 || s.Failed[KindRateLimited] != 2 {
				t.Errorf("stats = %+v", s)
			}
		})
	}
}

func TestCooldownIsSharedByPeersOnOneHost(t *testing.T) {
	p := newPeer(t, mux(map[string]http.Handler{
		"/alice/": serve(429, "", "Retry-After", "600"),
		"/bob/":   serve(200, "bob's manifest"),
	}))
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) { o.IgnoreRobots = true })
	_, err := c.Get(context.Background(), Request{URL: p.URL + "/alice/MANIFEST.md"})
	wantKind(t, err, KindRateLimited)

	_, err = c.Get(context.Background(), Request{URL: p.URL + "/bob/MANIFEST.md"})
	wantKind(t, err, KindRateLimited)
	if p.Hits("/bob/MANIFEST.md") != 0 {
		t.Fatal("bob's request went out while the host cooled down")
	}

	clk.Advance(601 * time.Second)
	resp, err := c.Get(context.Background(), Request{URL: p.URL + "/bob/MANIFEST.md"})
	if err != nil || string(resp.Body) != "bob's manifest" {
		t.Fatalf("after the cooldown: %v, %v", resp, err)
	}
}

func TestShortRetryAfterIsWaitedOutOnce(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter string
		limited    int // 429 answers before a 200
		wantHits   int
		wantSleeps []time.Duration
		wantKind   Kind
	}{
		{"one short 429 then success", "2", 1, 2, []time.Duration{2 * time.Second}, ""},
		{"a second 429 is not waited out", "2", 2, 2, []time.Duration{2 * time.Second}, KindRateLimited},
		{"Retry-After 0 forever stops after one retry", "0", 100, 2, nil, KindRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			p := newPeer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if int(n.Add(1)) <= tt.limited {
					w.Header().Set("Retry-After", tt.retryAfter)
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.Write([]byte("ok"))
			}))
			clk := newFakeClock()
			c := newTestClient(clk, func(o *Options) { o.IgnoreRobots = true })
			_, err := c.Get(context.Background(), Request{URL: p.URL + "/m"})
			if tt.wantKind == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantKind != "" {
				wantKind(t, err, tt.wantKind)
			}
			if p.Hits("/m") != tt.wantHits || !reflect.DeepEqual(clk.Sleeps(), tt.wantSleeps) {
				t.Errorf("%d requests, sleeps %v; want %d, %v", p.Hits("/m"), clk.Sleeps(), tt.wantHits, tt.wantSleeps)
			}
		})
	}
}

func TestShortRetryAfterPastTheDeadlineFailsFast(t *testing.T) {
	p := newPeer(t, serve(429, "", "Retry-After", "3"))
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) { o.IgnoreRobots = true })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := c.Get(ctx, Request{URL: p.URL + "/m"})
	wantKind(t, err, KindRateLimited)
	if len(clk.Sleeps()) != 0 {
		t.Errorf("waited %v past the caller's deadline", clk.Sleeps())
	}
}

func TestServiceUnavailableWithoutRetryAfterIsAServerError(t *testing.T) {
	p := newPeer(t, serve(503, "maintenance"))
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) { o.IgnoreRobots = true })
	_, err := c.Get(context.Background(), Request{URL: p.URL + "/m"})
	wantKind(t, err, KindServer)
	if p.Hits("/m") != 3 {
		t.Errorf("%d requests, want 3 (retried with backoff)", p.Hits("/m"))
	}
}

func TestExhaustedBudgetOnSuccessHoldsTheNextRequest(t *testing.T) {
	p := newPeer(t, serve(200, "ok", "X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "90"))
	clk := newFakeClock()
	c := newTestClient(clk, func(o *Options) { o.IgnoreRobots = true })
	resp, err := c.Get(context.Background(), Request{URL: p.URL + "/m"})
	if err != nil {
		t.Fatal(err)
	}
	want := RateLimit{Limit: 100, Remaining: 0, Reset: clk.Now().Add(90 * time.Second)}
	if resp.RateLimit != want {
		t.Errorf("RateLimit = %+v, want %+v", resp.RateLimit, want)
	}
	_, err = c.Get(context.Background(), Request{URL: p.URL + "/m"})
	e := wantKind(t, err, KindRateLimited)
	if !e.RetryAfter.Equal(want.Reset) || p.Hits("/m") != 1 {
		t.Errorf("RetryAfter %v, %d requests", e.RetryAfter, p.Hits("/m"))
	}
	if msg := e.Error(); !strings.Contains(msg, "rate_limited until 2026-03-01T12:01:30Z") {
		t.Errorf("error message %q does not say until when", msg)
	}
}
