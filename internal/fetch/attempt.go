package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// drainBytes is how much of an error body is read so the connection can be
// reused.
const drainBytes = 4 << 10

// attempt sends one request (following same-host redirects) and reads the
// body within Options.Timeout.
func (c *Client) attempt(parent context.Context, h *host, u *url.URL, r Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(parent, c.opts.Timeout)
	defer cancel()
	if r.Within != "" {
		ctx = context.WithValue(ctx, withinKey{}, r.Within)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Kind: KindBadURL, URL: u.String(), Err: err}
	}
	c.setHeaders(req, r)
	c.stats.add(func(s *Stats) { s.Requests++ })
	sent := c.opts.Now()
	resp, err := c.httpFor(r).Do(req)
	if err != nil {
		return nil, transportError(parent, u.String(), err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor == 2 {
		c.multiplexed(h)
	}
	now := c.opts.Now()
	rl := parseRateLimit(resp.Header, now)
	if err := c.checkStatus(h, u.String(), resp, rl, now); err != nil {
		io.CopyN(io.Discard, resp.Body, drainBytes)
		return nil, err
	}
	if rl.exhausted() {
		c.hostSignalled(h, rateLimitUntil(rl, now))
	}
	out := &Response{
		Status:       resp.StatusCode,
		ETag:         resp.Header.Get("ETag"),
		LastModified: resp.Header.Get("Last-Modified"),
		FinalURL:     resp.Request.URL.String(),
		RateLimit:    rl,
	}
	if resp.StatusCode == http.StatusNotModified {
		c.stats.add(func(s *Stats) { s.NotModified++ })
		return notModified(out, r), nil
	}
	resp.Body = guardRate(resp.Body, sent, c.opts.Now)
	out.Body, err = readCapped(resp, maxBytes(r), r.truncate, r.Hold)
	if err != nil {
		return nil, bodyError(parent, u.String(), err)
	}
	c.stats.add(func(s *Stats) { s.Bytes += int64(len(out.Body)) })
	return out, nil
}

func (c *Client) setHeaders(req *http.Request, r Request) {
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/markdown, text/plain;q=0.9, */*;q=0.5")
	if r.ETag != "" {
		req.Header.Set("If-None-Match", r.ETag)
	}
	if r.LastModified != "" {
		req.Header.Set("If-Modified-Since", r.LastModified)
	}
}

// notModified fills a 304 answer, keeping the caller's validators when the
// server did not repeat them, so they are not lost for next time.
func notModified(out *Response, r Request) *Response {
	out.NotModified = true
	if out.ETag == "" {
		out.ETag = r.ETag
	}
	if out.LastModified == "" {
		out.LastModified = r.LastModified
	}
	return out
}

// checkStatus maps a status to an error, and records a host's request to
// slow down as a cooldown shared by every peer on the host.
func (c *Client) checkStatus(h *host, target string, resp *http.Response, rl RateLimit, now time.Time) error {
	st := resp.StatusCode
	if until, ok := rateLimited(resp, rl, now); ok {
		c.hostSignalled(h, until)
		return &Error{Kind: KindRateLimited, URL: target, Status: st, RetryAfter: until}
	}
	switch {
	case st >= 200 && st < 300, st == http.StatusNotModified:
		return nil
	case st == http.StatusNotFound:
		return &Error{Kind: KindNotFound, URL: target, Status: st}
	case st == http.StatusGone:
		return &Error{Kind: KindGone, URL: target, Status: st}
	case st >= 300 && st < 400:
		return &Error{Kind: KindRedirect, URL: target, Status: st, Err: errors.New("redirect without a usable Location")}
	case st >= 400 && st < 500:
		return &Error{Kind: KindClient, URL: target, Status: st}
	}
	return &Error{Kind: KindServer, URL: target, Status: st}
}

// rateLimited reports whether a response asks us to wait, and until when:
// a 429 always (Retry-After, else the X-RateLimit reset, else
// DefaultCooldown); a 503 or 403 only when it names a time (Retry-After,
// or X-RateLimit-Remaining: 0 as GitHub's API sends with 403). A 503
// without one is an ordinary server error, retried with backoff.
func rateLimited(resp *http.Response, rl RateLimit, now time.Time) (time.Time, bool) {
	ra, hasRA := parseRetryAfter(resp.Header.Get("Retry-After"), now)
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		if hasRA {
			return ra, true
		}
		return rateLimitUntil(rl, now), true
	case http.StatusServiceUnavailable, http.StatusForbidden:
		if hasRA {
			return ra, true
		}
		if rl.exhausted() {
			return rateLimitUntil(rl, now), true
		}
	}
	return time.Time{}, false
}

// rateLimitUntil is when an exhausted X-RateLimit budget comes back:
// its Reset, or DefaultCooldown from now when the host sent none.
func rateLimitUntil(rl RateLimit, now time.Time) time.Time {
	if rl.Reset.After(now) {
		return rl.Reset
	}
	return now.Add(DefaultCooldown)
}

// hostSignalled records a rate-limit signal: a cooldown and a counter.
func (c *Client) hostSignalled(h *host, until time.Time) {
	c.coolDown(h, until)
	c.stats.add(func(s *Stats) { s.RateLimitHits++ })
}

var errTooLarge = errors.New("body exceeds the size limit")

// readChunk is how much of a body is read at a time, and so how far a
// body may run ahead of what its hold was told.
const readChunk = 32 << 10

// firstBuffer is the capacity a body is first read into: the length the
// server announced and one byte to see its end, when that is at most one
// readChunk (the most a read runs ahead of its hold anyway) and max;
// else 512, grown as io.ReadAll grows it. Grown from 512, a 3 kB trace
// took three buffers and 8 kB.
func firstBuffer(contentLength, max int64) int {
	if contentLength < 0 || contentLength >= readChunk || contentLength > max {
		return 512
	}
	return int(contentLength) + 1
}

// heldError is a refusal by Request.Hold.
type heldError struct{ err error }

func (e heldError) Error() string { return e.err.Error() }
func (e heldError) Unwrap() error { return e.err }

// readCapped reads at most max decoded bytes, telling hold (when set) the
// bytes read so far before it keeps them. The Transport has already
// undone any gzip, so a small compressed body that inflates past max is
// caught here too.
func readCapped(resp *http.Response, max int64, truncate bool, hold func(int64) error) ([]byte, error) {
	if resp.ContentLength > max && !truncate {
		return nil, fmt.Errorf("%w: Content-Length %d > %d", errTooLarge, resp.ContentLength, max)
	}
	b := make([]byte, 0, firstBuffer(resp.ContentLength, max))
	body := io.LimitReader(resp.Body, max+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grows as io.ReadAll does
		}
		n, err := body.Read(b[len(b):min(cap(b), len(b)+readChunk)])
		if n > 0 && hold != nil {
			if herr := hold(int64(len(b) + n)); herr != nil {
				return nil, heldError{herr}
			}
		}
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(b)) > max {
		if truncate {
			return b[:max], nil
		}
		return nil, fmt.Errorf("%w: more than %d bytes", errTooLarge, max)
	}
	return b, nil
}

func maxBytes(r Request) int64 {
	if r.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return r.MaxBytes
}

// transportError classifies an error from http.Client.Do.
func transportError(parent context.Context, target string, err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its message repeats the URL
	}
	var pe *privateAddrError
	switch {
	case errors.As(err, &pe):
		return &Error{Kind: KindPrivate, URL: target, Err: err}
	case isRedirectError(err):
		return &Error{Kind: KindRedirect, URL: target, Err: err}
	}
	return bodyError(parent, target, err)
}

// bodyError classifies an error met while reading a response.
func bodyError(parent context.Context, target string, err error) *Error {
	var ne net.Error
	var he heldError
	switch {
	case errors.Is(err, errTooLarge):
		return &Error{Kind: KindTooLarge, URL: target, Err: err}
	case errors.As(err, &he):
		return &Error{Kind: KindHeld, URL: target, Err: he.err}
	case errors.Is(err, errBodyTooSlow):
		return &Error{Kind: KindTimeout, URL: target, Err: err}
	case errors.Is(parent.Err(), context.Canceled):
		return &Error{Kind: KindCanceled, URL: target, Err: err}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &Error{Kind: KindTimeout, URL: target, Err: err}
	}
	return &Error{Kind: KindNetwork, URL: target, Err: err}
}
