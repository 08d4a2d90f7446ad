package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults applied by New to zero Options fields.
const (
	// DefaultTimeout bounds one request from dial to the last body byte, so
	// a peer that drips one byte a second is cut off.
	DefaultTimeout = 20 * time.Second
	// DefaultMaxConnsPerHost caps concurrent requests per host over
	// HTTP/1.1, as browsers do: the corpus has 12 agents on one host, and
	// they share this cap.
	DefaultMaxConnsPerHost = 4
	// DefaultMaxStreamsPerHost caps concurrent requests per host once the
	// host answered over HTTP/2: they share one connection as streams, the
	// way browsers use GitHub Pages and CDNs, so more of them cost the host
	// no more sockets.
	DefaultMaxStreamsPerHost = 16
	// DefaultMaxRedirects bounds a redirect chain.
	DefaultMaxRedirects = 5
	// DefaultMaxRetries is how often a 5xx or network error is retried
	// within one Get; the next heartbeat is the real retry.
	DefaultMaxRetries = 2
	// DefaultMaxBytes caps a body when Request.MaxBytes is 0.
	DefaultMaxBytes = 4 << 20
	// DefaultUserAgent is sent when Options.UserAgent is empty; nodes
	// should name themselves and their URL instead (docs/protocol.md §11.1).
	DefaultUserAgent = "meshnode (+https://github.com/meshnode/meshnode)"
	// DefaultMaxInlineWait is the longest Retry-After or cooldown that Get
	// waits out (once) instead of failing fast with KindRateLimited.
	DefaultMaxInlineWait = 5 * time.Second
)

// Transport limits that Options do not expose.
const (
	dialTimeout     = 10 * time.Second
	tlsTimeout      = 10 * time.Second
	idleConnTimeout = 90 * time.Second
)

// MaxHeaderBytes caps a response's header block, over HTTP/1.1
// (Transport.MaxResponseHeaderBytes) and HTTP/2 (the Transport derives
// its SETTINGS_MAX_HEADER_LIST_SIZE and its decoder's limit from the same
// field). Go's default is 10 MB: 64 peers answering with 9.5 MB of headers
// took 450 MB of RSS. Real hosts send about 1 KiB; browsers and proxies
// allow 8 to 64 KiB.
const MaxHeaderBytes = 64 << 10

// Options configure a Client. The zero value is usable: every zero field
// takes its default.
type Options struct {
	// UserAgent names the node and its URL, e.g.
	// "meshnode/0.1 (+https://agent.example/traces/; agent jolt37)".
	// robots.txt groups are matched against the product token "meshnode".
	UserAgent string
	// AllowPrivate lets requests reach private and loopback addresses
	// (config allow_private_addresses; tests on 127.0.0.1), except those a
	// Request marks Public. Link-local and cloud metadata addresses are
	// refused whatever it says.
	AllowPrivate bool
	// Timeout bounds each attempt, body included. Default 20s.
	Timeout time.Duration
	// MaxConnsPerHost caps concurrent requests, and connections, per host
	// over HTTP/1.1. Default 4.
	MaxConnsPerHost int
	// MaxStreamsPerHost caps concurrent requests per host once the host
	// has answered over HTTP/2, multiplexed on one connection. Default 16;
	// never below MaxConnsPerHost.
	MaxStreamsPerHost int
	// RequestsPerSecond, when positive, is a fixed request rate per host.
	RequestsPerSecond float64
	// MaxRedirects bounds a redirect chain. Default 5; negative: none.
	MaxRedirects int
	// MaxRetries bounds retries of 5xx and network errors. Default 2;
	// negative: none.
	MaxRetries int
	// MaxInlineWait is the longest host-requested wait Get sits out once.
	// Default 5s; negative: never wait, always fail fast.
	MaxInlineWait time.Duration
	// IgnoreRobots skips robots.txt (for tests and private meshes only).
	IgnoreRobots bool
	// Now is the clock for cooldowns, crawl delays and the robots cache.
	Now func() time.Time
	// Sleep waits for d or until ctx is done; tests pass a fake.
	Sleep func(ctx context.Context, d time.Duration) error

	// rootCAs replaces the system's roots, so tests can trust their own
	// loopback TLS server. Only tests of this package set it.
	rootCAs *x509.CertPool
}

// Client fetches peers' files. It is safe for concurrent use, and all peers
// on one host must share one Client so that they share its politeness.
type Client struct {
	opts   Options
	http   *http.Client
	public *http.Client   // for Request.Public: http itself unless AllowPrivate
	jitter func() float64 // in [jitterMin, jitterMax)

	mu    sync.Mutex
	hosts map[string]*host

	stats counters
}

// New returns a Client with o's zero fields set to their defaults.
func New(o Options) *Client {
	o = withDefaults(o)
	c := &Client{
		opts:   o,
		hosts:  map[string]*host{},
		jitter: func() float64 { return jitterMin + rand.Float64()*(jitterMax-jitterMin) },
	}
	c.http = newHTTPClient(o, o.AllowPrivate, settingPrivate)
	c.public = c.http
	if o.AllowPrivate {
		// Its own connections too: a pooled connection to a private
		// address is never lent to a request that must not reach one.
		c.public = newHTTPClient(o, false, settingGossipPrivate)
	}
	return c
}

func withDefaults(o Options) Options {
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxConnsPerHost <= 0 {
		o.MaxConnsPerHost = DefaultMaxConnsPerHost
	}
	if o.MaxStreamsPerHost <= 0 {
		o.MaxStreamsPerHost = DefaultMaxStreamsPerHost
	}
	o.MaxStreamsPerHost = max(o.MaxStreamsPerHost, o.MaxConnsPerHost)
	o.MaxRedirects = orDefault(o.MaxRedirects, DefaultMaxRedirects)
	o.MaxRetries = orDefault(o.MaxRetries, DefaultMaxRetries)
	if o.MaxInlineWait == 0 {
		o.MaxInlineWait = DefaultMaxInlineWait
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	return o
}

// orDefault maps 0 to def and a negative value to 0.
func orDefault(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// newHTTPClient builds an http.Client on its own Transport.
func newHTTPClient(o Options, allowPrivate bool, off string) *http.Client {
	return &http.Client{
		Transport:     newTransport(o, allowPrivate, off),
		CheckRedirect: checkRedirect(o.MaxRedirects),
	}
}

// httpFor is the http.Client that sends r.
func (c *Client) httpFor(r Request) *http.Client {
	if r.Public {
		return c.public
	}
	return c.http
}

// newTransport builds the Transport requests share, one for those that
// may reach private addresses and one for those that may not. Proxies are
// not used: a proxy would dial for us and bypass the private-address guard.
// Compression is left to the Transport, so bodies arrive decoded and the
// size cap counts decoded bytes (a gzip bomb is caught).
//
// HTTP/2 is offered over TLS (ALPN) beside HTTP/1.1; plain http stays
// HTTP/1.1. StrictMaxConcurrentRequests keeps to the stream limit the
// server announces instead of opening more connections past it, so an
// HTTP/2 host sees one connection from us.
//
// Each host keeps as many idle connections as it may have in flight, and
// the pool has no limit across hosts (MaxIdleConns 0): a heartbeat visits
// every host again and again (its peers are polled hosts in turn), and a
// pool of 100 in all closed connections as they went idle once more than
// 25 hosts were polled, so most requests opened a new one. The connections
// open at once stay bounded by MaxConnsPerHost per host, idle ones
// included, and idle ones close after idleConnTimeout.
func newTransport(o Options, allowPrivate bool, off string) *http.Transport {
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: dialGuard(allowPrivate, off)}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	t := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		Protocols:              &protocols,
		HTTP2:                  &http.HTTP2Config{StrictMaxConcurrentRequests: true},
		TLSHandshakeTimeout:    tlsTimeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: MaxHeaderBytes,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        idleConnTimeout,
		MaxIdleConns:           0,
		MaxIdleConnsPerHost:    o.MaxConnsPerHost,
		MaxConnsPerHost:        o.MaxConnsPerHost,
	}
	if o.rootCAs != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: o.rootCAs}
	}
	return t
}

// sleep is the real Options.Sleep.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
