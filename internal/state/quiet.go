package state

import (
	"hash/fnv"
	"time"
)

// maxQuietSteps bounds the polls walked from a peer's last news to find
// its next one; a schedule that needs more (only a hand-edited one can)
// polls the peer every heartbeat instead.
const maxQuietSteps = 1 << 16

// beat returns the heartbeat of the quiet schedule now falls on, counted
// from the last news (which a poll recorded, so it falls on a heartbeat),
// rounded to the nearest so a run a few minutes early or late counts as
// the one it was scheduled as; ok is false when the peer is polled every
// heartbeat at now: no adaptive schedule, entries left to fetch, a spike
// today, a clock before its last news, or a quiet time still within the
// first interval.
func (c *Cursor) beat(now time.Time) (j int64, ok bool) {
	s := c.Schedule
	if s == nil || !s.adaptive() || c.LastNews.IsZero() || c.Unread() || now.Before(c.LastNews) {
		return 0, false
	}
	if c.spike(utc(now), s.SpikeFactor) {
		return 0, false
	}
	since := now.Sub(c.LastNews)
	j = int64((since + s.Heartbeat/2) / s.Heartbeat)
	return j, s.level(j) > 1
}

// quietNext returns the first heartbeat after j (counted from the last
// news) at which the quiet schedule polls the peer, and whether the walk
// found it within maxQuietSteps.
//
// The polls are a walk from the last news: every heartbeat while the
// interval is one heartbeat, then from each poll p the next is its
// interval n(p) later, so a trace published after p waits at most n(p),
// the interval when it was published. The first poll at each longer
// interval comes earlier by the peer's offset modulo that interval, a
// number from a hash of its URL: peers that went quiet together (a mesh
// first polled at once) spread over the heartbeats instead of all coming
// due in the same one. Once at MaxInterval, the walk repeats every
// MaxInterval.
func (c *Cursor) quietNext(j int64) (int64, bool) {
	s := *c.Schedule
	top := int64(s.MaxInterval / s.Heartbeat)
	offset := c.offset()
	p, prev := int64(0), int64(1)
	for range maxQuietSteps {
		if p > j {
			return p, true
		}
		n := s.level(p)
		if n == top && prev == top {
			return p + ((j-p)/n+1)*n, true
		}
		next := p + n
		if n > prev {
			next -= int64(offset % uint64(n))
		}
		p, prev = next, n
	}
	return 0, false
}

// offset is the peer's place in the quiet schedule: a hash of its URL,
// zero for a cursor that does not know its URL.
func (c *Cursor) offset() uint64 {
	if c.url == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(c.url))
	return h.Sum64()
}

// quietDue reports whether the quiet schedule polls the peer at now.
func (c *Cursor) quietDue(now time.Time) bool {
	j, ok := c.beat(now)
	if !ok || j == 0 {
		return true
	}
	next, found := c.quietNext(j - 1)
	return !found || next == j
}

// NextPollAt returns when the quiet schedule polls the peer next after
// now, or zero when that is the next heartbeat: the NextPoll a poll at now
// records. The circuit breaker is not consulted (see Next).
func (c *Cursor) NextPollAt(now time.Time) time.Time {
	j, ok := c.beat(now)
	if !ok {
		return time.Time{}
	}
	next, found := c.quietNext(j)
	if !found || next <= j+1 {
		return time.Time{}
	}
	return c.LastNews.Add(time.Duration(next) * c.Schedule.Heartbeat)
}

// IntervalAt returns the peer's interval at now: a trace it publishes now
// is picked up within it (given a heartbeat every Schedule.Heartbeat), and
// a peer with no adaptive schedule or polled every heartbeat answers its
// heartbeat, or zero when it has no schedule at all.
func (c *Cursor) IntervalAt(now time.Time) time.Duration {
	if c.Schedule == nil {
		return 0
	}
	j, ok := c.beat(now)
	if !ok {
		return c.Schedule.Heartbeat
	}
	return time.Duration(c.Schedule.level(j)) * c.Schedule.Heartbeat
}
