package state

import "time"

// maxQuietPoll bounds how far past its last poll a NextPoll read from an
// older node's file may lie: a hand-edited value cannot mute a peer for
// longer than the circuit breaker mutes one that is gone. It also bounds
// a stored schedule's intervals.
const maxQuietPoll = WeeklyInterval

// Schedule is how often peers that answer are polled: every heartbeat
// while they publish, less often the longer they stay quiet. A cursor
// keeps the schedule its last successful poll applied, so its due times
// can be derived from what it stores (docs/decisions.md, "Adaptive
// polling"). Durations are stored in nanoseconds, like a host's
// crawl_delay.
type Schedule struct {
	// Heartbeat is the interval of scheduled runs, the shortest interval.
	Heartbeat time.Duration `json:"heartbeat"`
	// QuietAfter is how long a peer may publish nothing before it is
	// polled less often; its interval then grows in proportion to its
	// quiet time: Heartbeat × quiet / QuietAfter. Zero polls every peer
	// every heartbeat.
	QuietAfter time.Duration `json:"quiet_after"`
	// MaxInterval bounds the interval of a quiet peer.
	MaxInterval time.Duration `json:"max_interval"`
	// SpikeFactor is how many times its 7-day daily average a peer must
	// publish in a day for a spike.
	SpikeFactor float64 `json:"spike_factor,omitempty"`
}

// Interval returns how long a peer that has published nothing for quiet
// waits for its next poll: Heartbeat until QuietAfter, then growing with
// quiet, in whole heartbeats so it falls on a scheduled run, at most
// MaxInterval.
func (s Schedule) Interval(quiet time.Duration) time.Duration {
	if s.QuietAfter <= 0 || s.Heartbeat <= 0 || quiet <= s.QuietAfter {
		return s.Heartbeat
	}
	beats := time.Duration(float64(quiet) / float64(s.QuietAfter))
	return min(max(beats*s.Heartbeat, s.Heartbeat), max(s.MaxInterval, s.Heartbeat))
}

// adaptive reports whether s polls quiet peers less often, with bounds a
// due time can be derived from: a heartbeat of at least a minute and
// intervals of at most a week (a stored schedule may be hand-edited).
func (s Schedule) adaptive() bool {
	return s.Heartbeat >= time.Minute && s.QuietAfter > 0 && s.QuietAfter <= maxQuietPoll &&
		s.MaxInterval > s.Heartbeat && s.MaxInterval <= maxQuietPoll
}

// level is the interval, in heartbeats, of a peer at heartbeat j after its
// last news.
func (s Schedule) level(j int64) int64 {
	return int64(s.Interval(time.Duration(j)*s.Heartbeat) / s.Heartbeat)
}

// Next returns when the peer is due as of its last poll: the later of the
// circuit breaker's time (LastPolled plus Interval) and the quiet
// schedule's next poll after LastPolled (see NextAt), at most a week
// after the last poll. Zero means now. A cursor read back from disk
// keeps poll times up to a day old (PollTimesEvery), so NextAt answers
// for a given time.
func (c *Cursor) Next() time.Time {
	if c.LastPolled.IsZero() {
		return time.Time{}
	}
	return c.NextAt(c.LastPolled)
}

// NextAt returns when the peer is due next as of now: the later of the
// circuit breaker's time and the quiet schedule's next poll after now (for
// a cursor with no schedule, an older node's NextPoll). Zero means never
// polled.
func (c *Cursor) NextAt(now time.Time) time.Time {
	if c.LastPolled.IsZero() {
		return time.Time{}
	}
	next := c.LastPolled.Add(c.Interval())
	if c.FailureCount > 0 {
		return next // a failing peer follows the breaker alone
	}
	quiet := c.NextPoll
	if c.Schedule != nil {
		quiet = c.NextPollAt(now)
	}
	if !quiet.IsZero() {
		next = later(next, earlier(quiet, c.LastPolled.Add(maxQuietPoll)))
	}
	return next
}

// ObservedAt is the time what the node knows of the peer is current as of,
// at now: now for a peer polled every heartbeat (the last poll is at most
// one heartbeat old), the last successful poll for a quiet peer polled
// less often. Presence is judged as of that time, so a peer nobody looked
// at for hours is not called offline for it, nor active without a look.
// Read back from disk, that poll may be up to a day older than the last
// one (PollTimesEvery): presence is then judged as of a time the node
// did look.
func (c *Cursor) ObservedAt(now time.Time) time.Time {
	if c.LastSuccess.IsZero() || c.LastSuccess.After(now) || c.FailureCount > 0 {
		return now
	}
	if c.Schedule == nil && !c.NextPoll.IsZero() {
		return c.LastSuccess
	}
	if _, quiet := c.beat(now); quiet {
		return c.LastSuccess
	}
	return now
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
