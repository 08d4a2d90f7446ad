package state

import (
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

var sched = Schedule{Heartbeat: 30 * time.Minute, QuietAfter: 2 * time.Hour, MaxInterval: 6 * time.Hour, SpikeFactor: 3}

func TestQuietIntervalGrowsWithQuietTimeWithinBounds(t *testing.T) {
	tests := []struct {
		quiet time.Duration
		want  time.Duration
	}{
		{0, 30 * time.Minute},
		{2 * time.Hour, 30 * time.Minute},
		{3 * time.Hour, 30 * time.Minute},
		{4 * time.Hour, time.Hour},
		{7 * time.Hour, 90 * time.Minute},
		{12 * time.Hour, 3 * time.Hour},
		{24 * time.Hour, 6 * time.Hour},
		{90 * 24 * time.Hour, 6 * time.Hour},
	}
	for _, tt := range tests {
		if got := sched.Interval(tt.quiet); got != tt.want {
			t.Errorf("quiet %v: interval %v, want %v", tt.quiet, got, tt.want)
		}
	}
	off := sched
	off.QuietAfter = 0
	if got := off.Interval(30 * 24 * time.Hour); got != 30*time.Minute {
		t.Errorf("adaptive off: interval %v, want every heartbeat", got)
	}
}

// poll records a successful poll at t0+at that found news new seqs.
func poll(c *Cursor, at time.Duration, news int) Activity {
	now := t0.Add(at)
	c.LastPolled = now
	c.RecordSuccess(now)
	return c.RecordActivity(now, news, sched)
}

func TestQuietPeerIsPolledLessOftenAndNewsBringsItBack(t *testing.T) {
	c := &Cursor{}
	poll(c, 0, 40) // first contact: a catch-up, not news
	if !c.LastNews.Equal(t0) || len(c.NewsPerDay) != 0 || !c.NextPoll.IsZero() {
		t.Fatalf("after first contact: last_news %v, news %v, next %v", c.LastNews, c.NewsPerDay, c.NextPoll)
	}
	at := time.Duration(0)
	for at < 26*time.Hour {
		if !c.Due(t0.Add(at)) {
			at += 30 * time.Minute
			continue
		}
		poll(c, at, 0)
		at += 30 * time.Minute
	}
	if got := c.NextPoll.Sub(c.LastPolled); got != 6*time.Hour {
		t.Fatalf("a peer quiet for a day waits %v, want the 6h bound", got)
	}
	if c.Due(c.LastPolled.Add(5 * time.Hour)) {
		t.Error("due 5h after its last poll, with a 6h interval")
	}
	if !c.Due(c.NextPoll.Add(-DueSlack)) {
		t.Error("not due at its next poll time (less the slack)")
	}
	a := poll(c, 27*time.Hour, 1)
	if a.Interval != 30*time.Minute || !c.NextPoll.IsZero() || !c.Due(t0.Add(27*time.Hour+30*time.Minute)) {
		t.Errorf("after news: interval %v, next %v; want every heartbeat", a.Interval, c.NextPoll)
	}
}

func TestRefreshedUpdatedIsNotNews(t *testing.T) {
	c := &Cursor{}
	poll(c, 0, 0)
	poll(c, 10*time.Hour, 0) // the manifest changed, but only its updated: line
	if !c.LastNews.Equal(t0) || c.NextPoll.IsZero() {
		t.Errorf("last_news %v, next %v: a poll without new seqs must not reset the quiet time", c.LastNews, c.NextPoll)
	}
}

func TestSpikeIsThreeTimesTheSevenDayRate(t *testing.T) {
	tests := []struct {
		name      string
		perDay    int // on each of the 7 days before
		today     int
		wantSpike bool
	}{
		{"one a day, then three", 1, 3, true},
		{"one a day, then two", 1, 2, false},
		{"two a day, then five", 2, 5, false},
		{"two a day, then six", 2, 6, true},
		{"silent, then two", 0, 2, false},
		{"silent, then three", 0, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cursor{}
			poll(c, 0, 0)
			for d := 1; d <= SpikeWindowDays; d++ {
				if tt.perDay > 0 {
					poll(c, time.Duration(d)*24*time.Hour, tt.perDay)
				}
			}
			// Quiet long enough to be polled every 6 hours.
			poll(c, 8*24*time.Hour+12*time.Hour, 0)
			poll(c, 8*24*time.Hour+13*time.Hour, 0)
			var a Activity
			for range tt.today {
				a = poll(c, 8*24*time.Hour+14*time.Hour, 1)
			}
			if tt.today == 0 {
				return
			}
			if a.Spike != tt.wantSpike || a.Today != tt.today || a.DailyAvg != float64(tt.perDay) {
				t.Fatalf("activity %+v, want spike=%v today=%d avg=%d", a, tt.wantSpike, tt.today, tt.perDay)
			}
			// A spike keeps the peer at every heartbeat for the rest of
			// the day, even after the quiet threshold.
			later := poll(c, 8*24*time.Hour+20*time.Hour, 0)
			if tt.wantSpike != (later.Interval == sched.Heartbeat) {
				t.Errorf("6h after the spike: interval %v (spike %v)", later.Interval, tt.wantSpike)
			}
		})
	}
}

func TestNewsCountsKeepOnlyTheSpikeWindow(t *testing.T) {
	c := &Cursor{}
	poll(c, 0, 0)
	for d := 1; d <= 20; d++ {
		poll(c, time.Duration(d)*24*time.Hour, 1)
	}
	if len(c.NewsPerDay) != SpikeWindowDays+1 {
		t.Errorf("%d days kept, want %d: %v", len(c.NewsPerDay), SpikeWindowDays+1, c.NewsPerDay)
	}
}

func TestEntriesLeftToFetchKeepAQuietPeerAtEveryHeartbeat(t *testing.T) {
	c := &Cursor{}
	poll(c, 0, 0)
	c.Retry = []manifest.Seq{7}
	if a := poll(c, 24*time.Hour, 0); a.Interval != sched.Heartbeat || !c.NextPoll.IsZero() {
		t.Errorf("quiet peer with a retry: interval %v, next %v; want the next heartbeat", a.Interval, c.NextPoll)
	}
	c.Retry, c.Backlog = nil, true
	if a := poll(c, 25*time.Hour, 0); a.Interval != sched.Heartbeat {
		t.Errorf("quiet peer with a backlog: interval %v; want the next heartbeat", a.Interval)
	}
}

func TestFailureHandsThePeerBackToTheBreaker(t *testing.T) {
	c := &Cursor{}
	poll(c, 0, 0)
	poll(c, 24*time.Hour, 0)
	if c.NextPoll.IsZero() {
		t.Fatal("quiet peer has no next poll")
	}
	now := t0.Add(30 * time.Hour)
	c.LastPolled = now
	c.RecordFailure(now, "connection refused")
	if !c.NextPoll.IsZero() || !c.Due(now.Add(30*time.Minute)) {
		t.Errorf("after one failure: next %v; want every heartbeat (the breaker's first steps)", c.NextPoll)
	}
}

func TestNextPollCannotMuteAPeerForMoreThanAWeek(t *testing.T) {
	c := &Cursor{LastPolled: t0, LastSuccess: t0, NextPoll: t0.AddDate(1, 0, 0)}
	if c.Due(t0.Add(6 * 24 * time.Hour)) {
		t.Error("due after 6 days")
	}
	if !c.Due(t0.Add(WeeklyInterval)) {
		t.Error("a hand-edited next_poll a year ahead mutes the peer past a week")
	}
}

func TestBreakerAndQuietScheduleTakeTheLaterTime(t *testing.T) {
	// A daily breaker with an earlier quiet time waits for the breaker.
	c := failN(DailyAfterFailures, time.Hour)
	c.NextPoll = c.LastPolled.Add(time.Hour)
	if c.Due(c.LastPolled.Add(2 * time.Hour)) {
		t.Error("a peer on the daily breaker is due after 2h")
	}
	if !c.Due(c.LastPolled.Add(DailyInterval)) {
		t.Error("not due after a day")
	}
}

func TestPresenceIsObservedAtTheLastPollOfAQuietPeer(t *testing.T) {
	c := &Cursor{}
	poll(c, 0, 0)
	now := t0.Add(20 * time.Minute)
	if got := c.ObservedAt(now); !got.Equal(now) {
		t.Errorf("peer polled every heartbeat observed at %v, want now", got)
	}
	poll(c, 24*time.Hour, 0)
	now = t0.Add(27 * time.Hour)
	if got := c.ObservedAt(now); !got.Equal(t0.Add(24 * time.Hour)) {
		t.Errorf("quiet peer observed at %v, want its last poll", got)
	}
}

// A first catch-up cut short (a budget, the deadline, Ctrl-C, a failed
// file) goes on at the next heartbeats; what they read is still the
// catch-up, not news, so none of it is a spike, and the peer's quiet time
// starts once it is read in full.
func TestCatchUpOverSeveralPollsIsNoSpike(t *testing.T) {
	c := &Cursor{Backlog: true}
	if a := poll(c, 0, 40); a.Spike || !c.LastNews.IsZero() {
		t.Fatalf("first poll, backlog left: spike %v, last_news %v", a.Spike, c.LastNews)
	}
	c.Backlog, c.Retry = false, []manifest.Seq{7}
	if a := poll(c, 30*time.Minute, 40); a.Spike || !c.LastNews.IsZero() {
		t.Fatalf("second poll, a file to retry: spike %v, last_news %v", a.Spike, c.LastNews)
	}
	c.Retry = nil
	if a := poll(c, time.Hour, 1); a.Spike || !c.LastNews.Equal(t0.Add(time.Hour)) || len(c.NewsPerDay) != 0 {
		t.Fatalf("read in full: spike %v, last_news %v, news %v", a.Spike, c.LastNews, c.NewsPerDay)
	}
	if a := poll(c, 2*time.Hour, 5); !a.Spike {
		t.Errorf("five new seqs after the catch-up, in a peer's first day: no spike")
	}
}
