package fetch

import (
	"context"
	"time"

	"github.com/temoto/robotstxt"
	"golang.org/x/time/rate"
)

// MaxCrawlDelay caps the Crawl-delay a robots.txt may impose: one request a
// minute still lets a heartbeat make progress, and the cursor carries on
// where the heartbeat deadline stopped it.
const MaxCrawlDelay = time.Minute

// host is the politeness state of one host[:port], shared by every peer
// on it.
type host struct {
	// sem holds one token per request in flight, plus, until the host
	// answers over HTTP/2, the tokens that keep it at the HTTP/1.1 cap.
	sem      chan struct{}
	reserved int           // tokens of sem held back while the host is on HTTP/1.1; guarded by Client.mu
	limiter  *rate.Limiter // nil unless Options.RequestsPerSecond
	robotsMu chan struct{} // one robots.txt fetch per host at a time; a channel so waiting heeds ctx

	// Guarded by Client.mu.
	cooldownUntil  time.Time
	crawlDelay     time.Duration
	nextStart      time.Time // earliest start allowed by the crawl delay
	robots         *robotstxt.RobotsData
	robotsBody     string
	robotsFetched  time.Time
	robotsErr      *Error    // why robots.txt could not be read
	robotsErrUntil time.Time // robots.txt is not asked again before this
}

// host returns the state of the named host, creating it on first use.
func (c *Client) host(name string) *host {
	name = hostKey(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.hosts[name]
	if !ok {
		h = newHost(c.opts.MaxConnsPerHost, c.opts.MaxStreamsPerHost)
		if c.opts.RequestsPerSecond > 0 {
			h.limiter = rate.NewLimiter(rate.Limit(c.opts.RequestsPerSecond), 1)
		}
		c.hosts[name] = h
	}
	return h
}

// newHost returns a host capped at conns requests in flight until it speaks
// HTTP/2, and at streams after.
func newHost(conns, streams int) *host {
	h := &host{sem: make(chan struct{}, streams), reserved: streams - conns, robotsMu: make(chan struct{}, 1)}
	for range h.reserved {
		h.sem <- struct{}{}
	}
	return h
}

// multiplexed raises h's cap to MaxStreamsPerHost: the host answered over
// HTTP/2, so its requests share one connection as streams. Taking the
// reserved tokens out never blocks: the channel holds at least that many.
func (c *Client) multiplexed(h *host) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ; h.reserved > 0; h.reserved-- {
		<-h.sem
	}
}

// admit waits until h lets one more request start and returns the function
// that gives the slot back. A cooldown longer than MaxInlineWait (or one
// already waited out once in this Get, or one past the caller's deadline)
// fails fast with KindRateLimited.
func (c *Client) admit(ctx context.Context, h *host, target string, waited *bool) (func(), error) {
	if err := c.waitCooldown(ctx, h, target, waited); err != nil {
		return nil, err
	}
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, contextError(ctx, target)
	}
	release := func() { <-h.sem }
	if err := c.pace(ctx, h, target); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

func (c *Client) waitCooldown(ctx context.Context, h *host, target string, waited *bool) error {
	c.mu.Lock()
	until := h.cooldownUntil
	c.mu.Unlock()
	d := until.Sub(c.opts.Now())
	if d <= 0 {
		return nil
	}
	if !c.mayWait(ctx, d, *waited) {
		return &Error{Kind: KindRateLimited, URL: target, RetryAfter: until}
	}
	*waited = true
	return c.sleep(ctx, target, d)
}

// mayWait reports whether a host-requested wait of d is short enough to sit
// out inside one Get.
func (c *Client) mayWait(ctx context.Context, d time.Duration, waited bool) bool {
	return !waited && d <= c.opts.MaxInlineWait && fitsDeadline(ctx, d)
}

// pace spaces request starts on h by its crawl delay and fixed rate. The
// slot is reserved under the lock, so concurrent peers queue up instead of
// all starting when the delay ends.
func (c *Client) pace(ctx context.Context, h *host, target string) error {
	c.mu.Lock()
	now := c.opts.Now()
	start := later(now, h.nextStart)
	var res *rate.Reservation
	if h.limiter != nil {
		res = h.limiter.ReserveN(now, 1)
		start = later(start, now.Add(res.DelayFrom(now)))
	}
	wait := start.Sub(now)
	if wait > 0 && !fitsDeadline(ctx, wait) {
		if res != nil {
			res.CancelAt(now)
		}
		c.mu.Unlock()
		return &Error{Kind: KindRateLimited, URL: target, RetryAfter: start,
			Err: errTooSlow}
	}
	h.nextStart = start.Add(h.crawlDelay)
	c.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	return c.sleep(ctx, target, wait)
}

// coolDown makes every request to h wait until until (never shortening a
// cooldown already set).
func (c *Client) coolDown(h *host, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if until.After(h.cooldownUntil) {
		h.cooldownUntil = until
	}
}

func (c *Client) sleep(ctx context.Context, target string, d time.Duration) error {
	if err := c.opts.Sleep(ctx, d); err != nil {
		return contextError(ctx, target)
	}
	return nil
}

// fitsDeadline reports whether waiting d still leaves time before ctx's
// deadline. Context deadlines are wall-clock time, whatever Options.Now is.
func fitsDeadline(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > d
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
