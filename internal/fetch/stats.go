package fetch

import (
	"maps"
	"sync"
)

// Stats are docs/protocol.md §14's counters for one Client, since it was made.
type Stats struct {
	// Requests counts HTTP requests sent: retries and robots.txt included.
	Requests int64 `json:"requests_total"`
	// Failed counts Get calls that returned an error, by Kind.
	Failed map[Kind]int64 `json:"requests_failed"`
	// RateLimitHits counts responses by which a host asked us to slow down
	// (429, 503 with Retry-After, X-RateLimit-Remaining: 0).
	RateLimitHits int64 `json:"rate_limit_hits"`
	// Retries counts retries after a 5xx or a network error.
	Retries int64 `json:"retries"`
	// NotModified counts 304 answers to conditional requests.
	NotModified int64 `json:"not_modified"`
	// Bytes counts decoded body bytes read.
	Bytes int64 `json:"bytes"`
}

type counters struct {
	mu sync.Mutex
	s  Stats
}

func (c *counters) add(f func(s *Stats)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.s)
}

// Stats returns a snapshot of the client's counters.
func (c *Client) Stats() Stats {
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	s := c.stats.s
	s.Failed = maps.Clone(s.Failed)
	if s.Failed == nil {
		s.Failed = map[Kind]int64{}
	}
	return s
}

func (c *Client) countFailure(err error) {
	k := KindOf(err)
	if k == "" {
		k = KindNetwork
	}
	c.stats.add(func(s *Stats) {
		if s.Failed == nil {
			s.Failed = map[Kind]int64{}
		}
		s.Failed[k]++
	})
}
