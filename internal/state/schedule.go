package state

import (
	"maps"
	"slices"
	"time"
)

// Spike detection (docs/decisions.md, "Adaptive polling"): a day with at
// least SpikeMinimum new seqs, and at least the spike factor times the
// peer's daily average over the 7 days before it, is a spike.
const (
	// SpikeMinimum keeps a quiet peer's first two traces from counting as
	// a spike: with an average near zero, any one trace would.
	SpikeMinimum = 3
	// SpikeWindowDays is how many days before today the average covers.
	SpikeWindowDays = 7
)

// maxQuietPoll bounds how far past its last poll a stored NextPoll may
// lie: a hand-edited value cannot mute a peer for longer than the circuit
// breaker mutes one that is gone.
const maxQuietPoll = WeeklyInterval

// dayLayout keys Cursor.NewsPerDay by UTC day.
const dayLayout = "2006-01-02"

// Schedule is how often peers that answer are polled: every heartbeat
// while they publish, less often the longer they stay quiet.
type Schedule struct {
	// Heartbeat is the interval of scheduled runs, the shortest interval.
	Heartbeat time.Duration
	// QuietAfter is how long a peer may publish nothing before it is
	// polled less often; its interval then grows in proportion to its
	// quiet time: Heartbeat × quiet / QuietAfter. Zero polls every peer
	// every heartbeat.
	QuietAfter time.Duration
	// MaxInterval bounds the interval of a quiet peer.
	MaxInterval time.Duration
	// SpikeFactor is how many times its 7-day daily average a peer must
	// publish in a day for a spike.
	SpikeFactor float64
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

// Activity is what a successful poll learned of a peer's publishing.
type Activity struct {
	Interval time.Duration // until the next poll
	Today    int           // new seqs seen today (UTC)
	DailyAvg float64       // new seqs per day over the SpikeWindowDays before today
	Spike    bool
}

// RecordActivity records a successful poll at now that found news new
// seqs (a refreshed `updated:` is not news), and sets NextPoll by s. A
// spike, and any news, bring the peer back to every heartbeat. The first
// poll that finds the peer at all starts its quiet time without counting
// what it caught up on, which would look like a spike and inflate its rate
// for a week.
func (c *Cursor) RecordActivity(now time.Time, news int, s Schedule) Activity {
	now = utc(now)
	switch {
	case c.LastNews.IsZero():
		c.LastNews = now
	case news > 0:
		c.LastNews = now
		c.countNews(now, news)
	}
	a := c.activity(now, s.SpikeFactor)
	a.Interval = s.Interval(now.Sub(c.LastNews))
	if a.Spike || c.Unread() {
		// Entries left to fetch (a retry, a budget's backlog) are asked for
		// at the next heartbeat, however quiet the peer.
		a.Interval = s.Heartbeat
	}
	c.NextPoll = time.Time{}
	if a.Interval > s.Heartbeat {
		c.NextPoll = now.Add(a.Interval)
	}
	return a
}

// countNews adds n new seqs to today's count and forgets days older than
// the spike window.
func (c *Cursor) countNews(now time.Time, n int) {
	if c.NewsPerDay == nil {
		c.NewsPerDay = map[string]int{}
	}
	c.NewsPerDay[now.Format(dayLayout)] += n
	oldest := now.AddDate(0, 0, -SpikeWindowDays).Format(dayLayout)
	for _, d := range slices.Collect(maps.Keys(c.NewsPerDay)) {
		if d < oldest {
			delete(c.NewsPerDay, d)
		}
	}
}

// activity computes today's count, the average of the days before and
// whether today is a spike.
func (c *Cursor) activity(now time.Time, factor float64) Activity {
	var a Activity
	a.Today = c.NewsPerDay[now.Format(dayLayout)]
	week := 0
	for d := 1; d <= SpikeWindowDays; d++ {
		week += c.NewsPerDay[now.AddDate(0, 0, -d).Format(dayLayout)]
	}
	a.DailyAvg = float64(week) / SpikeWindowDays
	a.Spike = factor > 0 && a.Today >= SpikeMinimum && float64(a.Today) >= factor*a.DailyAvg
	return a
}

// Next returns when the peer is due: the later of the circuit breaker's
// time (LastPolled plus Interval) and the quiet schedule's NextPoll, the
// latter at most a week after the last poll. Zero means now.
func (c *Cursor) Next() time.Time {
	if c.LastPolled.IsZero() {
		return time.Time{}
	}
	next := c.LastPolled.Add(c.Interval())
	if !c.NextPoll.IsZero() {
		next = later(next, earlier(c.NextPoll, c.LastPolled.Add(maxQuietPoll)))
	}
	return next
}

// ObservedAt is the time what the node knows of the peer is current as of,
// at now: now for a peer polled every heartbeat (the last poll is at most
// one heartbeat old), the last successful poll for a quiet peer polled
// less often. Presence is judged as of that time, so a peer nobody looked
// at for hours is not called offline for it, nor active without a look.
func (c *Cursor) ObservedAt(now time.Time) time.Time {
	if c.NextPoll.IsZero() || c.LastSuccess.IsZero() || c.LastSuccess.After(now) {
		return now
	}
	return c.LastSuccess
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
