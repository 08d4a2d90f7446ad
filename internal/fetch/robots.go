package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/temoto/robotstxt"
)

// robots.txt handling (docs/protocol.md §11.2: "cache robots.txt for 24 hours, honor
// Crawl-delay, skip disallowed paths"; the rest follows RFC 9309).
const (
	// RobotsTTL is how long a robots.txt is trusted (docs/protocol.md §11.2).
	RobotsTTL = 24 * time.Hour
	// MaxRobotsBytes caps robots.txt: the file is kept in the node's state
	// between heartbeats, and peers' robots files are a few lines. Bytes
	// beyond the cap are ignored, as RFC 9309 §2.5 allows.
	MaxRobotsBytes = 64 << 10
	// RobotsRetry is how long a robots.txt that could not be read (5xx,
	// timeout, connection refused) is not asked again: well under a
	// heartbeat, so the next heartbeat tries again, and long enough that the
	// twelve peers on one host cost one robots request, not twelve.
	RobotsRetry = 10 * time.Minute
	// robotsAgent is the product token robots.txt groups are matched on.
	robotsAgent = "meshnode"
)

// checkRobots returns a KindBlocked error when robots.txt disallows u.
//
// A robots.txt that answers 4xx (or redirects off the host, which this
// client never follows) allows everything (RFC 9309 §2.3.1.3). One that
// cannot be read (5xx, network error, timeout) means complete disallow
// (RFC 9309 §2.3.1.4): the last copy read is used if there is one, however
// old; without one, requests to the host fail with robots.txt's own error
// kind (server_error, network, timeout), so they count as the host's
// failure, and robots.txt is asked again after RobotsRetry.
func (c *Client) checkRobots(ctx context.Context, h *host, u *url.URL, public bool) error {
	rd, err := c.robotsFor(ctx, h, u, public)
	if err != nil {
		return err
	}
	if !rd.TestAgent(robotsPath(u), robotsAgent) {
		return &Error{Kind: KindBlocked, URL: u.String(), Err: fmt.Errorf("disallowed by %s://%s/robots.txt", u.Scheme, u.Host)}
	}
	return nil
}

// robotsFor returns h's robots rules, fetching them when none are fresh,
// through the same guard as the request they are for (public).
func (c *Client) robotsFor(ctx context.Context, h *host, u *url.URL, public bool) (*robotstxt.RobotsData, error) {
	select {
	case h.robotsMu <- struct{}{}:
		defer func() { <-h.robotsMu }()
	case <-ctx.Done():
		return nil, contextError(ctx, u.String())
	}
	if rd, err, ok := c.cachedRobots(h, u); ok {
		return rd, err
	}
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	resp, err := c.fetch(ctx, h, ru, Request{URL: ru.String(), MaxBytes: MaxRobotsBytes + 1, Public: public, truncate: true})
	var fe *Error
	switch KindOf(err) {
	case "":
		c.storeRobots(h, truncateRobots(string(resp.Body)))
	case KindNotFound, KindGone, KindClient, KindRedirect:
		c.storeRobots(h, "")
	case KindRateLimited, KindCanceled, KindPrivate, KindBadURL:
		return nil, err
	default:
		if !errors.As(err, &fe) {
			fe = &Error{Kind: KindNetwork, URL: ru.String(), Err: err}
		}
		c.robotsFailed(h, fe)
	}
	rd, err, _ := c.cachedRobots(h, u)
	return rd, err
}

// cachedRobots returns the rules in memory and whether they may be used
// without asking the host again.
func (c *Client) cachedRobots(h *host, u *url.URL) (*robotstxt.RobotsData, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opts.Now()
	if h.robots != nil && now.Before(h.robotsFetched.Add(RobotsTTL)) {
		return h.robots, nil, true
	}
	if !now.Before(h.robotsErrUntil) {
		return nil, nil, false
	}
	if h.robots != nil {
		return h.robots, nil, true
	}
	e := *h.robotsErr
	e.URL = u.String()
	why := "robots.txt unreadable, so the host is treated as disallowing all (RFC 9309)"
	if e.Kind == KindNetwork || e.Kind == KindTimeout {
		// Nothing answered at all: say so, not a robots.txt rule.
		why = "host unreachable"
	}
	e.Err = fmt.Errorf("%s: %w", why, h.robotsErr)
	return nil, &e, true
}

func (c *Client) storeRobots(h *host, body string) {
	rd := parseRobots(body)
	c.mu.Lock()
	defer c.mu.Unlock()
	h.robots, h.robotsBody, h.robotsFetched = rd, body, c.opts.Now()
	h.robotsErr, h.robotsErrUntil = nil, time.Time{}
	h.crawlDelay = min(rd.FindGroup(robotsAgent).CrawlDelay, MaxCrawlDelay)
}

func (c *Client) robotsFailed(h *host, err *Error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h.robotsErr, h.robotsErrUntil = err, c.opts.Now().Add(RobotsRetry)
}

// parseRobots parses a robots.txt body. A file the parser rejects (rules
// before any User-agent line, an unreadable Crawl-delay) states no rule we
// can follow, so it allows everything, as a missing file does.
func parseRobots(body string) *robotstxt.RobotsData {
	rd, err := robotstxt.FromString(body)
	if err != nil {
		rd, _ = robotstxt.FromString("")
	}
	return rd
}

// robotsPath is the part of u robots rules are matched against.
func robotsPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// truncateRobots cuts body to MaxRobotsBytes at a line end, so a rule is
// never cut in half.
func truncateRobots(body string) string {
	if len(body) <= MaxRobotsBytes {
		return body
	}
	body = body[:MaxRobotsBytes]
	if i := strings.LastIndexByte(body, '\n'); i >= 0 {
		body = body[:i+1]
	}
	return body
}
