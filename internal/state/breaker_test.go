package state

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func failN(n int, every time.Duration) *Cursor {
	c := &Cursor{}
	for i := 0; i < n; i++ {
		now := t0.Add(time.Duration(i) * every)
		c.LastPolled = now
		c.RecordFailure(now, "connection refused")
	}
	return c
}

func TestBreakerFollowsSeedSchedule(t *testing.T) {
	tests := []struct {
		name        string
		failures    int
		every       time.Duration
		wantBackoff string
		wantStatus  string
		wantIv      time.Duration
	}{
		{"two failures still poll every heartbeat", 2, 30 * time.Minute, BackoffNone, "", 0},
		{"three failures poll hourly", 3, 30 * time.Minute, BackoffHourly, "", HourlyInterval},
		{"nine failures still hourly", 9, time.Hour, BackoffHourly, "", HourlyInterval},
		{"ten failures poll daily", 10, time.Hour, BackoffDaily, "", DailyInterval},
		{"failing for 29 days is daily, not unreachable", 30, 24 * time.Hour, BackoffDaily, "", DailyInterval},
		{"failing for 30 days is unreachable and weekly", 31, 24 * time.Hour, BackoffWeekly, StatusUnreachable, WeeklyInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := failN(tt.failures, tt.every)
			if c.FailureCount != tt.failures || c.Backoff != tt.wantBackoff || c.Status != tt.wantStatus || c.Interval() != tt.wantIv {
				t.Fatalf("got count=%d backoff=%q status=%q interval=%v", c.FailureCount, c.Backoff, c.Status, c.Interval())
			}
			if !c.FirstFailure.Equal(t0) {
				t.Errorf("first failure = %v, want %v", c.FirstFailure, t0)
			}
		})
	}
}

func TestDueAnswersFromLastPollAndBackoff(t *testing.T) {
	tests := []struct {
		name   string
		cursor *Cursor
		after  time.Duration
		want   bool
	}{
		{"never polled", &Cursor{}, 0, true},
		{"healthy peer every heartbeat", &Cursor{LastPolled: t0}, 30 * time.Minute, true},
		{"hourly peer after 30 minutes is not due", failN(3, 0), 30 * time.Minute, false},
		{"hourly peer a minute early is due", failN(3, 0), 59 * time.Minute, true},
		{"daily peer after 12 hours is not due", failN(10, 0), 12 * time.Hour, false},
		{"daily peer after a day is due", failN(10, 0), 24 * time.Hour, true},
		{"gone peer after a day is not due", gone(), 24 * time.Hour, false},
		{"gone peer after a week is due", gone(), 7 * 24 * time.Hour, true},
		{"a poll time in the future does not starve the peer", failN(10, 0), -time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cursor.Due(tt.cursor.LastPolled.Add(tt.after)); got != tt.want {
				t.Fatalf("Due = %v, want %v (cursor %+v)", got, tt.want, tt.cursor)
			}
		})
	}
}

func gone() *Cursor {
	c := &Cursor{LastPolled: t0}
	c.RecordGone(t0, "410 Gone")
	return c
}

func TestRecordSuccessResetsBreakerButKeepsCursor(t *testing.T) {
	c := failN(40, 24*time.Hour)
	c.LastSeenSeq = 12
	c.RecordSuccess(t0.Add(41 * 24 * time.Hour))
	if c.FailureCount != 0 || c.Backoff != "" || c.Status != "" || !c.FirstFailure.IsZero() || c.LastError != "" {
		t.Fatalf("breaker not reset: %+v", c)
	}
	if c.LastSeenSeq != 12 {
		t.Fatalf("cursor lost: %d", c.LastSeenSeq)
	}
}
