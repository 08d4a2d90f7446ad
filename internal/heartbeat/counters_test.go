package heartbeat

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/queue"
)

// notFound counts the 404s served for anything but robots.txt (a missing
// robots.txt is no failure).
var notFound atomic.Int64

// counted wraps h, counting the requests it serves and its 404s.
func counted(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(rec, r)
		if rec.code == http.StatusNotFound && r.URL.Path != "/robots.txt" {
			notFound.Add(1)
		}
	})
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

// TestSummaryCountsPolling runs two heartbeats on one kept fetch client
// against a good peer, a peer that rate-limits for an hour and one whose
// MANIFEST is missing: the summary's polling counters match what the
// servers saw and the queue holds, and the second run counts only its own
// requests.
func TestSummaryCountsPolling(t *testing.T) {
	var requests atomic.Int64
	good := goodPeer(t)
	defer good.Close()
	goodCounted := httptest.NewServer(counted(good.Config.Handler, &requests))
	defer goodCounted.Close()
	limited := httptest.NewServer(counted(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}), &requests))
	defer limited.Close()
	missing := httptest.NewServer(counted(http.NotFoundHandler(), &requests))
	defer missing.Close()
	dir := newNode(t, [][2]string{{"good", goodCounted.URL + "/"}, {"limited", limited.URL + "/"}, {"missing", missing.URL + "/"}},
		"scorer: manual\n")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := testNow
	client := NewClient(cfg, "test", func() time.Time { return now })
	run := func() *report.Summary {
		t.Helper()
		sum, err := Run(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return now }, Client: client,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}

	notFound.Store(0)
	sum := run()
	if sum.RequestsTotal != requests.Load() || sum.RequestsTotal == 0 {
		t.Errorf("requests_total %d, the servers saw %d", sum.RequestsTotal, requests.Load())
	}
	if sum.RateLimitHits != 1 || sum.RequestsFailed["rate_limited"] != 1 || sum.RequestsFailed["not_found"] != notFound.Load() ||
		len(sum.RequestsFailed) != 2 {
		t.Errorf("rate_limit_hits %d, requests_failed %v; want 1 hit, one rate_limited and the %d 404s served", sum.RateLimitHits, sum.RequestsFailed, notFound.Load())
	}
	if sum.BackoffSeconds != 3600 {
		t.Errorf("backoff_seconds %v, want the hour the limited host asked for", sum.BackoffSeconds)
	}
	if sum.PollLatencySeconds <= 0 {
		t.Errorf("poll_latency_seconds %v, want the time polling took", sum.PollLatencySeconds)
	}
	want := map[string]int{queue.StatusQueued: 2, queue.StatusInProgress: 0, queue.StatusDone: 0, queue.StatusFailed: 0, queue.StatusSkipped: 0}
	if sum.InboxSize != 2 || len(sum.QueueDepth) != len(want) {
		t.Errorf("inbox_size %d, queue_depth %v; want 2 and %v", sum.InboxSize, sum.QueueDepth, want)
	}
	for s, n := range want {
		if sum.QueueDepth[s] != n {
			t.Errorf("queue_depth[%s] = %d, want %d", s, sum.QueueDepth[s], n)
		}
	}
	data, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	json.Unmarshal(data, &fields)
	for _, k := range []string{"requests_total", "requests_failed", "rate_limit_hits", "poll_latency_seconds", "backoff_seconds", "inbox_size", "queue_depth"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("summary JSON lacks %q: %s", k, data)
		}
	}

	now = now.Add(10 * time.Minute)
	before := requests.Load()
	notFound.Store(0)
	second := run()
	if second.RequestsTotal != requests.Load()-before {
		t.Errorf("second run: requests_total %d, the servers saw %d in it", second.RequestsTotal, requests.Load()-before)
	}
	// The limited host is still cooling down: the client refuses the
	// fetch itself (a rate_limited failure) without asking it again.
	if second.RateLimitHits != 0 || second.RequestsFailed["rate_limited"] != 1 || second.RequestsFailed["not_found"] != notFound.Load() {
		t.Errorf("second run: %d rate-limit hits, failed %v; want none, the cooldown's refusal and the %d 404s of this run",
			second.RateLimitHits, second.RequestsFailed, notFound.Load())
	}
	if second.BackoffSeconds != 3000 {
		t.Errorf("second run: backoff_seconds %v, want the 50 minutes left", second.BackoffSeconds)
	}
}
