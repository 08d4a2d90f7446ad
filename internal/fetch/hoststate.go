package fetch

import (
	"strings"
	"time"
)

// HostState is the politeness a host asked for that must outlive one
// heartbeat: its cooldown, its crawl delay, and its robots.txt. It is
// keyed by host[:port] in Hosts and LoadHosts, and its JSON is stable
// (fixed field order, UTC times, zero fields left out).
type HostState struct {
	CooldownUntil time.Time     `json:"cooldown_until,omitzero"`
	CrawlDelay    time.Duration `json:"crawl_delay,omitzero"` // nanoseconds, as time.Duration marshals
	RobotsFetched time.Time     `json:"robots_fetched,omitzero"`
	Robots        string        `json:"robots,omitzero"` // at most MaxRobotsBytes
}

// Hosts returns the state worth keeping of every host the client knows:
// a cooldown still running, a crawl delay, a robots.txt read. Hosts with
// nothing to keep are left out, so an idle run changes nothing.
func (c *Client) Hosts() map[string]HostState {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opts.Now()
	out := map[string]HostState{}
	for name, h := range c.hosts {
		var s HostState
		if h.cooldownUntil.After(now) {
			s.CooldownUntil = h.cooldownUntil.UTC()
		}
		if h.robots != nil {
			s.RobotsFetched = h.robotsFetched.UTC()
			s.Robots = h.robotsBody
			s.CrawlDelay = h.crawlDelay
		}
		if s != (HostState{}) {
			out[name] = s
		}
	}
	return out
}

// LoadHosts restores state saved from Hosts, typically at the start of a
// heartbeat. It replaces what the client knows of those hosts' robots and
// extends their cooldowns; hosts not named are left alone. Values from a
// hand-edited or hostile state file are clamped: a cooldown to MaxCooldown
// from now, a crawl delay to MaxCrawlDelay, robots.txt to MaxRobotsBytes.
func (c *Client) LoadHosts(hosts map[string]HostState) {
	for name, s := range hosts {
		h := c.host(name)
		c.restore(h, s)
	}
}

func (c *Client) restore(h *host, s HostState) {
	rd := parseRobots(truncateRobots(s.Robots))
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opts.Now()
	if s.CooldownUntil.After(h.cooldownUntil) {
		h.cooldownUntil = clampTime(s.CooldownUntil, now)
	}
	if s.RobotsFetched.IsZero() {
		return
	}
	h.robots, h.robotsBody, h.robotsFetched = rd, truncateRobots(s.Robots), s.RobotsFetched
	if h.robotsFetched.After(now) {
		h.robotsFetched = now // a fetch time in the future would keep the file forever
	}
	h.crawlDelay = min(max(s.CrawlDelay, 0), MaxCrawlDelay)
}

// hostKey is the key of a URL's host in Hosts: lowercase host[:port].
func hostKey(hostport string) string { return strings.ToLower(hostport) }
