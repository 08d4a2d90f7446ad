package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"syscall"
)

// Request is one file to fetch.
type Request struct {
	URL string
	// MaxBytes caps the decoded body; 0 means DefaultMaxBytes. A larger
	// body fails with KindTooLarge.
	MaxBytes int64
	// ETag and LastModified are the validators of the copy the caller
	// holds, sent as If-None-Match and If-Modified-Since. They are kept
	// apart because GitHub Pages' ETag changes with every deploy while
	// Last-Modified may not.
	ETag, LastModified string
	// Within, when set, is the peer's base URL: the request and every
	// redirect it follows must stay under it, by the rule ResolveWithin
	// applies to a manifest's file column. A redirect that leaves it fails
	// with KindRedirect.
	Within string
	// Public refuses private and loopback addresses for this request even
	// when Options.AllowPrivate lets others reach them: a peer learned by
	// gossip is not one the owner vouched for (gossip.allow_private_addresses).
	Public bool
	// Hold, when set, is told the decoded bytes read so far each time the
	// body grows, before they are kept, and may refuse them: the fetch then
	// fails with KindHeld, wrapping Hold's error, and is not retried. It
	// lets a caller count a body in its memory budget as it arrives rather
	// than reserve MaxBytes before asking.
	Hold func(read int64) error

	truncate bool // keep the first MaxBytes instead of failing (robots.txt)
}

// Response is a successful fetch.
type Response struct {
	Status int
	// Body holds the decoded bytes (gzip undone), the ones to hash.
	Body []byte
	// NotModified is true for a 304: Body is empty and the caller's copy
	// is current.
	NotModified bool
	// ETag and LastModified are the validators to send next time.
	ETag, LastModified string
	// FinalURL is the URL after same-host redirects.
	FinalURL string
	// RateLimit holds the X-RateLimit-* headers the host sent.
	RateLimit RateLimit
}

var errTooSlow = errors.New("the host's crawl delay or request rate would outlast the deadline")

// Get fetches r.URL politely: robots.txt first, then the host's cooldown,
// cap on requests in flight, rate and crawl delay, then the request, retried with
// backoff after a 5xx (other than a 503 with Retry-After) or a network
// error. Every error is an *Error; rate limits have KindRateLimited and
// must not count as the peer's failure.
func (c *Client) Get(ctx context.Context, r Request) (*Response, error) {
	resp, err := c.get(ctx, r)
	if err != nil {
		c.countFailure(err)
		return nil, err
	}
	return resp, nil
}

func (c *Client) get(ctx context.Context, r Request) (*Response, error) {
	u, err := parseTarget(r.URL)
	if err != nil {
		return nil, err
	}
	if r.Within != "" {
		if err := within(r.Within, u); err != nil {
			return nil, &Error{Kind: KindBadURL, URL: r.URL, Err: err}
		}
	}
	h := c.host(u.Host)
	if !c.opts.IgnoreRobots {
		if err := c.checkRobots(ctx, h, u, r.Public); err != nil {
			return nil, err
		}
	}
	return c.fetch(ctx, h, u, r)
}

// fetch is Get after robots.txt: the retry loop.
func (c *Client) fetch(ctx context.Context, h *host, u *url.URL, r Request) (*Response, error) {
	waited := false
	for retries := 0; ; {
		resp, err := c.try(ctx, h, u, r, &waited)
		if err == nil {
			return resp, nil
		}
		var fe *Error
		if !errors.As(err, &fe) {
			return nil, err
		}
		wait := fe.RetryAfter.Sub(c.opts.Now())
		switch {
		case fe.Kind == KindRateLimited && c.mayWait(ctx, wait, waited):
			// A short Retry-After is sat out once; a second one fails.
			waited = true
			if wait > 0 {
				if serr := c.sleep(ctx, u.String(), wait); serr != nil {
					return nil, serr
				}
			}
			continue
		case retryable(fe) && retries < c.opts.MaxRetries:
			d := backoff(retries, c.jitter())
			if !fitsDeadline(ctx, d) {
				return nil, err
			}
			if serr := c.sleep(ctx, u.String(), d); serr != nil {
				return nil, serr
			}
			retries++
			c.stats.add(func(s *Stats) { s.Retries++ })
			continue
		}
		return nil, err
	}
}

// try is one attempt: wait for the host, then ask it.
func (c *Client) try(ctx context.Context, h *host, u *url.URL, r Request, waited *bool) (*Response, error) {
	release, err := c.admit(ctx, h, u.String(), waited)
	if err != nil {
		return nil, err
	}
	defer release()
	return c.attempt(ctx, h, u, r)
}

// retryable errors are worth asking again within one Get: a 5xx, or a
// connection that broke. A timeout is not: the peer already had its whole
// Timeout, and retrying would let one slow peer hold a host slot three
// times as long. Nor is a refused connection: nothing listens there, and
// seconds later nothing will; the next heartbeat asks again.
func retryable(e *Error) bool {
	switch {
	case e.Kind == KindServer:
		return true
	case e.Kind == KindNetwork:
		return !errors.Is(e.Err, syscall.ECONNREFUSED)
	}
	return false
}

// parseTarget accepts absolute http and https URLs with a host and no
// user info.
func parseTarget(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, &Error{Kind: KindBadURL, URL: raw, Err: err}
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, &Error{Kind: KindBadURL, URL: raw, Err: fmt.Errorf("scheme %q is not http or https", u.Scheme)}
	case u.Host == "" || strings.HasPrefix(u.Host, ":"):
		return nil, &Error{Kind: KindBadURL, URL: raw, Err: errors.New("no host")}
	case u.User != nil:
		return nil, &Error{Kind: KindBadURL, URL: raw, Err: errors.New("user info in URL")}
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// contextError turns a done context into an *Error: canceled by the
// caller, or out of time.
func contextError(ctx context.Context, target string) *Error {
	err := ctx.Err()
	if err == nil {
		err = context.DeadlineExceeded
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Kind: KindCanceled, URL: target, Err: err}
	}
	return &Error{Kind: KindTimeout, URL: target, Err: err}
}
