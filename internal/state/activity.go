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

// dayLayout keys Cursor.NewsPerDay by UTC day.
const dayLayout = "2006-01-02"

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
// heartbeat. The first contact with a peer starts its quiet time without
// counting what it caught up on, which would look like a spike and
// inflate its rate for a week; it lasts until the peer is read in full,
// since a catch-up cut by a budget, the deadline, Ctrl-C or a failed file
// goes on at the next heartbeats (docs/decisions.md, "Adaptive polling").
//
// Nothing this writes moves unless the peer publishes (or the schedule
// changes): the due times are derived from last_news, the schedule and
// the peer's URL, so a poll that finds nothing new leaves the peer's file
// as it was (docs/decisions.md, "Adaptive polling").
func (c *Cursor) RecordActivity(now time.Time, news int, s Schedule) Activity {
	now = utc(now)
	switch {
	case c.LastNews.IsZero():
		if !c.Unread() {
			c.LastNews = now
		}
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

// spike reports whether today is a spike at now, as activity does, but
// without formatting a day when no day counted holds SpikeMinimum new
// seqs: then today cannot be a spike. Due asks it of every peer at every
// heartbeat, and most peers never publish that much in a day.
func (c *Cursor) spike(now time.Time, factor float64) bool {
	if factor <= 0 {
		return false
	}
	most := 0
	for _, n := range c.NewsPerDay {
		most = max(most, n)
	}
	return most >= SpikeMinimum && c.activity(now, factor).Spike
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
