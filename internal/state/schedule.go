package state

import (
	"hash/fnv"
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

// maxQuietPoll bounds how far past its last poll a NextPoll read from an
// older node's file may lie: a hand-edited value cannot mute a peer for
// longer than the circuit breaker mutes one that is gone. It also bounds
// a stored schedule's intervals.
const maxQuietPoll = WeeklyInterval

// maxQuietSteps bounds the polls walked from a peer's last news to find
// its next one; a schedule that needs more (only a hand-edited one can)
// polls the peer every heartbeat instead.
const maxQuietSteps = 1 << 16

// dayLayout keys Cursor.NewsPerDay by UTC day.
const dayLayout = "2006-01-02"

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

// Activity is what a successful poll learned of a peer's publishing.
type Activity struct {
	Interval time.Duration // the peer's current interval: a trace published now is picked up within it
	Today    int           // new seqs seen today (UTC)
	DailyAvg float64       // new seqs per day over the SpikeWindowDays before today
	Spike    bool
}

// RecordActivity records a successful poll at now that found news new
// seqs (a refreshed `updated:` is not news), keeps s in the cursor and
// sets NextPoll by it. A spike, and any news, bring the peer back to every
// heartbeat. The first poll that finds the peer at all starts its quiet
// time without counting what it caught up on, which would look like a
// spike and inflate its rate for a week.
//
// Nothing this writes moves unless the peer publishes (or the schedule
// changes): the due times are derived from last_news, the schedule and
// the peer's URL, so a poll that finds nothing new leaves the peer's file
// as it was (docs/decisions.md, "Adaptive polling").
func (c *Cursor) RecordActivity(now time.Time, news int, s Schedule) Activity {
	now = utc(now)
	switch {
	case c.LastNews.IsZero():
		c.LastNews = now
	case news > 0:
		c.LastNews = now
		c.countNews(now, news)
	}
	c.Schedule = nil
	if s.adaptive() {
		plan := s
		c.Schedule = &plan
	}
	a := c.activity(now, s.SpikeFactor)
	a.Interval = s.Interval(now.Sub(c.LastNews))
	if a.Spike || c.Unread() {
		// Entries left to fetch (a retry, a budget's backlog) are asked for
		// at the next heartbeat, however quiet the peer.
		a.Interval = s.Heartbeat
	}
	c.NextPoll = c.NextPollAt(now)
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
	if c.activity(utc(now), s.SpikeFactor).Spike {
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
