package state

import "time"

// Circuit breaker thresholds of docs/protocol.md §9.1:
// 0–2 consecutive failures poll every heartbeat, 3–9
// hourly, 10 or more daily; still failing 30 days after the first failure,
// the agent is marked unreachable and retried weekly (§9.2).
const (
	HourlyAfterFailures = 3
	DailyAfterFailures  = 10
	UnreachableAfter    = 30 * 24 * time.Hour
)

// Intervals between polls of a failing peer.
const (
	HourlyInterval = time.Hour
	DailyInterval  = 24 * time.Hour
	WeeklyInterval = 7 * 24 * time.Hour
	// DueSlack is taken off every interval: scheduled runs start a few
	// minutes early or late, and a peer due "hourly" must not wait 90
	// minutes because this run started a minute before the hour was up.
	DueSlack = 5 * time.Minute
)

// Backoff values, as docs/protocol.md §9.1 writes them.
const (
	BackoffNone   = ""
	BackoffHourly = "hourly"
	BackoffDaily  = "daily"
	BackoffWeekly = "weekly"
)

// Status values. Both are kept in the state, never deleted: docs/protocol.md §9.1 says
// an agent's validated traces still count after it disappears.
const (
	// StatusUnreachable: failing for UnreachableAfter; retried weekly and
	// flagged for a person.
	StatusUnreachable = "unreachable"
	// StatusGone: the peer answered 410 Gone, saying it left on purpose.
	// It is muted the same way (retried weekly) rather than dropped, so a
	// peer that comes back is picked up again.
	StatusGone = "gone"
)

// RecordFailure counts one more consecutive failed poll at now and moves the
// cursor along the breaker schedule.
func (c *Cursor) RecordFailure(now time.Time, reason string) {
	if c.FailureCount == 0 || c.FirstFailure.IsZero() {
		c.FirstFailure = utc(now)
	}
	c.FailureCount++
	c.LastError = reason
	if now.Sub(c.FirstFailure) >= UnreachableAfter && c.Status == "" {
		c.Status = StatusUnreachable
	}
	c.Backoff = c.backoff()
	c.NextPoll = time.Time{} // a failing peer follows the breaker alone
}

// RecordGone records a 410 Gone answer: a failure that mutes the peer at
// once.
func (c *Cursor) RecordGone(now time.Time, reason string) {
	c.RecordFailure(now, reason)
	c.Status = StatusGone
	c.Backoff = BackoffWeekly
}

// RecordSuccess resets the breaker after a successful poll at now. Seed
// 000: "Reset on first successful fetch. Don't delete."
func (c *Cursor) RecordSuccess(now time.Time) {
	c.LastSuccess = utc(now)
	c.FailureCount = 0
	c.FirstFailure = time.Time{}
	c.Backoff = BackoffNone
	c.Status = ""
	c.LastError = ""
}

func (c *Cursor) backoff() string {
	switch {
	case c.Status != "":
		return BackoffWeekly
	case c.FailureCount >= DailyAfterFailures:
		return BackoffDaily
	case c.FailureCount >= HourlyAfterFailures:
		return BackoffHourly
	}
	return BackoffNone
}

// Interval returns how long the breaker waits between polls of this peer:
// zero means every heartbeat.
func (c *Cursor) Interval() time.Duration {
	switch c.backoff() {
	case BackoffWeekly:
		return WeeklyInterval
	case BackoffDaily:
		return DailyInterval
	case BackoffHourly:
		return HourlyInterval
	}
	return 0
}

// Due reports whether the peer should be polled at now. The breaker's
// part answers from LastPolled and the failure count and status (not the
// stored Backoff string, which a person may have edited), give or take
// DueSlack; a failing peer follows it alone. A healthy peer is then due
// when its quiet schedule, derived from its last news, polls it at now
// (docs/decisions.md, "Adaptive polling"), or, for a cursor with no
// schedule (an older node's file), when its NextPoll has come. A
// peer never polled, or polled "in the future" by a clock that went back,
// is due.
func (c *Cursor) Due(now time.Time) bool {
	if c.LastPolled.IsZero() || c.LastPolled.After(now) {
		return true
	}
	if now.Before(c.LastPolled.Add(c.Interval() - DueSlack)) {
		return false
	}
	if c.FailureCount > 0 {
		return true
	}
	if c.Schedule == nil && !c.NextPoll.IsZero() {
		return !now.Before(earlier(c.NextPoll, c.LastPolled.Add(maxQuietPoll)).Add(-DueSlack))
	}
	return c.quietDue(now)
}
