package watch

import (
	"net/http"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/queue"
)

// metrics are the polling strategy's counters (docs/watch.md, Metrics). The
// fetch client's own counters (fetch.Stats) are read when scraped, never
// counted twice.
type metrics struct {
	reg      *prometheus.Registry
	ticks    *prometheus.CounterVec
	traces   prometheus.Counter
	dups     prometheus.Counter
	latency  prometheus.Histogram
	inbox    prometheus.Gauge
	depth    *prometheus.GaugeVec
	polling  prometheus.Gauge
	degraded prometheus.Gauge
}

// statuses are the queue statuses queue_depth always reports, zeros included.
var statuses = []string{queue.StatusQueued, queue.StatusInProgress, queue.StatusDone, queue.StatusFailed, queue.StatusSkipped}

func newMetrics(w *Watcher) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		ticks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "meshnode_ticks_total",
			Help: "Ticks of the watcher, by result: ran, off (polling off), busy (the node was busy), error."}, []string{"result"}),
		traces: prometheus.NewCounter(prometheus.CounterOpts{Name: "meshnode_traces_processed_total",
			Help: "Peers' files fetched and verified against their sha256."}),
		dups: prometheus.NewCounter(prometheus.CounterOpts{Name: "meshnode_duplicates_skipped_total",
			Help: "Manifest rows skipped because their hash was already seen."}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "meshnode_poll_latency_seconds",
			Help:    "Time per poll cycle: one whole heartbeat.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}}),
		inbox: prometheus.NewGauge(prometheus.GaugeOpts{Name: "meshnode_inbox_size",
			Help: "Inbox items waiting: queued or in progress."}),
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "meshnode_queue_depth",
			Help: "Items in the validation queue, by status."}, []string{"status"}),
		polling: prometheus.NewGauge(prometheus.GaugeOpts{Name: "meshnode_polling_enabled",
			Help: "1 while polling is on."}),
		degraded: prometheus.NewGauge(prometheus.GaugeOpts{Name: "meshnode_peers_degraded",
			Help: "Peers whose circuit breaker is open."}),
	}
	for _, r := range []string{"ran", "off", "busy", "error"} {
		m.ticks.WithLabelValues(r)
	}
	m.reg.MustRegister(m.ticks, m.traces, m.dups, m.latency, m.inbox, m.depth, m.polling, m.degraded, &fetchCollector{w: w})
	return m
}

func (m *metrics) setQueue(items []queue.Item) {
	counts := map[string]int{}
	for _, it := range items {
		counts[it.Status]++
	}
	for _, s := range statuses {
		m.depth.WithLabelValues(s).Set(float64(counts[s]))
	}
	m.inbox.Set(float64(counts[queue.StatusQueued] + counts[queue.StatusInProgress]))
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// fetchCollector exposes the kept fetch client's counters when scraped.
type fetchCollector struct{ w *Watcher }

var (
	descRequests  = prometheus.NewDesc("meshnode_requests_total", "HTTP requests sent to peers, retries and robots.txt included.", nil, nil)
	descFailed    = prometheus.NewDesc("meshnode_requests_failed_total", "Fetches that failed, by kind of failure.", []string{"kind"}, nil)
	descRateLimit = prometheus.NewDesc("meshnode_rate_limit_hits_total", "Answers by which a host asked us to slow down (429, 503 with Retry-After, X-RateLimit-Remaining: 0).", nil, nil)
	descRetries   = prometheus.NewDesc("meshnode_retries_total", "Retries after a 5xx or a network error.", nil, nil)
	descNotMod    = prometheus.NewDesc("meshnode_not_modified_total", "304 answers to conditional requests.", nil, nil)
	descBytes     = prometheus.NewDesc("meshnode_fetched_bytes_total", "Body bytes read from peers.", nil, nil)
	descBackoff   = prometheus.NewDesc("meshnode_backoff_seconds", "The longest cooldown a host imposed that is still running.", nil, nil)
)

func (c *fetchCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRequests, descFailed, descRateLimit, descRetries, descNotMod, descBytes, descBackoff} {
		ch <- d
	}
}

func (c *fetchCollector) Collect(ch chan<- prometheus.Metric) {
	s, hosts := c.w.fetchStats()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	counter(descRequests, s.Requests)
	counter(descRateLimit, s.RateLimitHits)
	counter(descRetries, s.Retries)
	counter(descNotMod, s.NotModified)
	counter(descBytes, s.Bytes)
	kinds := make([]string, 0, len(s.Failed))
	for k := range s.Failed {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		counter(descFailed, s.Failed[fetch.Kind(k)], k)
	}
	now := c.w.now()
	var backoff time.Duration
	for _, h := range hosts {
		backoff = max(backoff, h.CooldownUntil.Sub(now))
	}
	ch <- prometheus.MustNewConstMetric(descBackoff, prometheus.GaugeValue, backoff.Seconds())
}

// addStats adds b's counters to a: a client replaced after a reload keeps
// counting in the totals.
func addStats(a, b fetch.Stats) fetch.Stats {
	a.Requests += b.Requests
	a.RateLimitHits += b.RateLimitHits
	a.Retries += b.Retries
	a.NotModified += b.NotModified
	a.Bytes += b.Bytes
	failed := map[fetch.Kind]int64{}
	for k, v := range a.Failed {
		failed[k] += v
	}
	for k, v := range b.Failed {
		failed[k] += v
	}
	a.Failed = failed
	return a
}
