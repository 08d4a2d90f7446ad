package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// pollQuiet records a successful poll at now that found news new seqs, as
// the heartbeat does.
func pollQuiet(c *Cursor, now time.Time, news int) {
	c.LastPolled = now
	c.RecordSuccess(now)
	c.RecordActivity(now, news, sched)
}

// TestQuietPeerFileIsByteIdenticalBetweenPresenceRefreshes runs three days
// of heartbeats over peers that publish nothing, each a separate load, poll
// when due and save, as the heartbeat does (a presence refresh every third
// heartbeat): the peers are still polled, but a peer's file is written
// only by its first poll and by a presence refresh that polled it once its
// poll times were a day old.
func TestQuietPeerFileIsByteIdenticalBetweenPresenceRefreshes(t *testing.T) {
	for _, url := range []string{"https://quiet.example/traces/", "https://q1.example/", "https://q2.example/", "https://q3.example/"} {
		t.Run(url, func(t *testing.T) { quietFileWrites(t, url) })
	}
}

func quietFileWrites(t *testing.T, url string) {
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	key := statefile.PeerFileName(url)
	var writes []int
	polled := map[int]bool{}
	last := ""
	for b := range 3 * 48 {
		now := t0.Add(time.Duration(b) * sched.Heartbeat)
		s, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if c := s.Cursor(url); c.Due(now) {
			pollQuiet(c, now, 0)
			polled[b] = true
		}
		var timesBefore time.Time
		if b%3 == 0 {
			timesBefore = now.Add(-PollTimesEvery)
		}
		if _, err := s.Save(p, timesBefore); err != nil {
			t.Fatal(err)
		}
		data, err := statefile.ReadOne(p, key)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != last {
			writes = append(writes, b)
			last = string(data)
		}
	}
	// Every heartbeat for 4 hours, then less often: about 18 polls the
	// first day and 4 a day after.
	if len(polled) < 22 || len(polled) > 32 {
		t.Errorf("%d polls in three quiet days, want between 22 and 32", len(polled))
	}
	if writes[0] != 0 || len(writes) > 3 {
		t.Errorf("file written at heartbeats %v; want the first poll and at most a presence refresh a day", writes)
	}
	for _, b := range writes[1:] {
		if b%3 != 0 || !polled[b] || b < 48 {
			t.Errorf("file written at heartbeat %d (polls %v): only a presence refresh that polled the peer may write its poll times", b, polled)
		}
	}
}

// herd is 1,000 peers first polled together at t0 and quiet since.
func herd() []*Cursor {
	s := New()
	var cs []*Cursor
	for i := range 1000 {
		c := s.Cursor(fmt.Sprintf("https://peer%d.example/traces/", i))
		pollQuiet(c, t0, 5)
		cs = append(cs, c)
	}
	return cs
}

// TestPeersFirstPolledTogetherComeDueSpreadOverHeartbeats: after their
// first hours, which poll every peer every heartbeat, 1,000 quiet peers
// first polled at once are never all due in one heartbeat, and once at
// the 6-hour bound each heartbeat polls about a twelfth of them.
func TestPeersFirstPolledTogetherComeDueSpreadOverHeartbeats(t *testing.T) {
	cs := herd()
	var due []int
	for b := 1; b <= 3*48; b++ {
		now := t0.Add(time.Duration(b) * sched.Heartbeat)
		n := 0
		for _, c := range cs {
			if c.Due(now) {
				pollQuiet(c, now, 0)
				n++
			}
		}
		due = append(due, n)
	}
	for b, n := range due[:8] {
		if n != len(cs) {
			t.Fatalf("heartbeat %d: %d due, want all %d while quiet for under 4 hours", b+1, n, len(cs))
		}
	}
	for b, n := range due[9:] {
		if n > len(cs)*3/4 {
			t.Errorf("heartbeat %d: %d of %d due at once; per heartbeat: %v", b+10, n, len(cs), due)
		}
	}
	for b, n := range due[2*48:] {
		if n < 40 || n > 130 {
			t.Errorf("heartbeat %d, at the 6-hour bound: %d due, want about %d", b+2*48+1, n, len(cs)/12)
		}
	}
}

// TestQuietScheduleToleratesLateAndEarlyRuns: with heartbeats up to 4
// minutes early or late, every peer of the herd is polled at the same
// heartbeats as on time, never waits longer than max_interval, and news
// brings a peer back to every heartbeat at once.
func TestQuietScheduleToleratesLateAndEarlyRuns(t *testing.T) {
	onTime, late := herd(), herd()
	jitter := func(b int) time.Duration { return time.Duration((b*7)%9-4) * time.Minute }
	lastPoll := make([]time.Time, len(late))
	for i := range late {
		lastPoll[i] = t0
	}
	for b := 1; b <= 3*48; b++ {
		exact := t0.Add(time.Duration(b) * sched.Heartbeat)
		now := exact.Add(jitter(b))
		for i := range late {
			news := 0
			if i == 0 && b == 100 {
				news = 1
			}
			want, got := onTime[i].Due(exact), late[i].Due(now)
			if want != got {
				t.Fatalf("peer %d, heartbeat %d (%v off): due %v, on time %v", i, b, jitter(b), got, want)
			}
			if !got {
				continue
			}
			if wait := now.Sub(lastPoll[i]); wait > sched.MaxInterval+10*time.Minute {
				t.Fatalf("peer %d waited %v, over max_interval", i, wait)
			}
			pollQuiet(onTime[i], exact, news)
			pollQuiet(late[i], now, news)
			lastPoll[i] = now
		}
	}
	for b := 101; b <= 104; b++ {
		if now := t0.Add(time.Duration(b)*sched.Heartbeat + jitter(b)); !late[0].Due(now) {
			t.Errorf("heartbeat %d, after news at 100: not due", b)
		}
	}
}

// gapsOf walks the quiet schedule of c for days after its last news with
// regular heartbeats and returns the polls, in heartbeats since the news.
func gapsOf(c *Cursor, days int) []int64 {
	var polls []int64
	for j := int64(0); j <= int64(days*48); j++ {
		now := c.LastNews.Add(time.Duration(j) * sched.Heartbeat)
		if j == 0 || c.quietDue(now) {
			polls = append(polls, j)
		}
	}
	return polls
}

// TestEveryTraceIsPickedUpWithinItsIntervalForAnyURL: for many URLs, the
// poll after any heartbeat j comes within the interval the peer has at j
// (so a trace published between two heartbeats waits no longer), and the
// polls settle at exactly max_interval apart.
func TestEveryTraceIsPickedUpWithinItsIntervalForAnyURL(t *testing.T) {
	for i := range 300 {
		s := New()
		c := s.Cursor(fmt.Sprintf("https://p%d.example/", i))
		pollQuiet(c, t0, 3)
		polls := gapsOf(c, 4)
		k := 0
		for j := int64(0); j < polls[len(polls)-1]; j++ {
			for polls[k] <= j {
				k++
			}
			now := c.LastNews.Add(time.Duration(j) * sched.Heartbeat)
			if wait := time.Duration(polls[k]-j) * sched.Heartbeat; wait > c.IntervalAt(now) {
				t.Fatalf("%s: after heartbeat %d the next poll is %v away, over its interval %v (polls %v)", c.url, j, wait, c.IntervalAt(now), polls)
			}
		}
		for k := len(polls) - 5; k < len(polls); k++ {
			if gap := polls[k] - polls[k-1]; gap != 12 {
				t.Fatalf("%s: polls %v; want 12 heartbeats (6 h) apart after a day", c.url, polls)
			}
		}
	}
}

// TestOldNextPollIsHonouredUntilThePeerIsPolled: a cursor file of an
// older node, with next_poll and no schedule, keeps the peer muted until
// its next_poll; the poll then stores the schedule, and the due times are
// derived from it from then on, whatever next_poll the file keeps.
func TestOldNextPollIsHonouredUntilThePeerIsPolled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	url := "https://old.example/traces/"
	dir := statefile.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := `{"url": "` + url + `", "cursor": {"last_seen_seq": 3, "last_polled": "2026-03-01T00:00:00Z",
		"last_success": "2026-03-01T00:00:00Z", "last_news": "2026-02-20T00:00:00Z", "next_poll": "2026-03-01T06:00:00Z"}}`
	if err := os.WriteFile(filepath.Join(dir, statefile.PeerFileName(url)), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cursors[url]
	if c.Due(t0.Add(3*time.Hour)) || !c.Due(t0.Add(6*time.Hour)) {
		t.Fatalf("stored next_poll 06:00 not honoured: due at 03:00 %v, at 06:00 %v", c.Due(t0.Add(3*time.Hour)), c.Due(t0.Add(6*time.Hour)))
	}
	pollQuiet(c, t0.Add(6*time.Hour), 0)
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	data, _ := statefile.ReadOne(p, statefile.PeerFileName(url))
	if !strings.Contains(string(data), `"schedule"`) || !strings.Contains(string(data), `"last_polled": "2026-03-01T06:00:00Z"`) {
		t.Fatalf("file after the poll:\n%s", data)
	}
	back, _ := Load(p)
	bc := back.Cursors[url]
	bc.NextPoll = t0.AddDate(0, 0, 3) // a hand edit no longer mutes the peer
	if !bc.Due(bc.NextPollAt(t0.Add(6 * time.Hour))) {
		t.Errorf("not due at its derived next poll %v", bc.NextPollAt(t0.Add(6*time.Hour)))
	}
}

// TestDueOfAQuietPeerAllocatesNothing holds Due, which a heartbeat asks of
// every peer, to the cursor it is given: a peer that published a trace
// or two a day this week is not due at most heartbeats, and finding so
// formats no day (the spike check) and allocates nothing.
func TestDueOfAQuietPeerAllocatesNothing(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	c := &Cursor{url: "https://quiet.example/traces/"}
	for d := range 5 {
		pollQuiet(c, t0.Add(time.Duration(d)*24*time.Hour), 2)
	}
	last := t0.Add(4 * 24 * time.Hour)
	var due, notDue int
	allocs := testing.AllocsPerRun(10, func() {
		due, notDue = 0, 0
		for h := 1; h <= 48; h++ {
			if c.Due(last.Add(time.Duration(h) * sched.Heartbeat)) {
				due++
			} else {
				notDue++
			}
		}
	})
	if due == 0 || notDue == 0 {
		t.Fatalf("due at %d heartbeats, not due at %d: want a quiet peer polled at some", due, notDue)
	}
	if allocs != 0 {
		t.Errorf("Due allocated %v times over a day of heartbeats, want none", allocs)
	}
}

// TestSpikeAgreesWithActivity checks Due's spike check against the full
// computation over generated weeks of news.
func TestSpikeAgreesWithActivity(t *testing.T) {
	now := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	for seed := range 2000 {
		c := &Cursor{NewsPerDay: map[string]int{}}
		for d := range SpikeWindowDays + 2 {
			if n := (seed >> d) % 5; n > 0 && (seed+d)%3 != 0 {
				c.NewsPerDay[now.AddDate(0, 0, -d).Format(dayLayout)] = n
			}
		}
		for _, factor := range []float64{0, 1, 3} {
			if got, want := c.spike(now, factor), c.activity(now, factor).Spike; got != want {
				t.Fatalf("news %v, factor %v: spike %v, activity says %v", c.NewsPerDay, factor, got, want)
			}
		}
	}
}

// TestNewsCountedAfterASaveIsWrittenByTheNext: the State keeps, for each
// cursor, what its file holds, to skip files that did not change. News
// counted in the same heartbeat after a save (a catch-up's second chunk, a
// process that saves between polls) changes only the day's count, which
// must still reach the file: the kept copy shares no map with the cursor.
func TestNewsCountedAfterASaveIsWrittenByTheNext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	url := "https://news.example/"
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := New()
	pollQuiet(s.Cursor(url), now.Add(-time.Hour), 1)
	if _, err := s.Save(p, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for i, news := range []int{2, 3} {
		s, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		pollQuiet(s.Cursor(url), now, news)
		if _, err := s.Save(p, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// The same State counts more news at the same instant and saves again.
			pollQuiet(s.Cursor(url), now, 4)
			if _, err := s.Save(p, time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	again, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Cursor(url).NewsPerDay[now.Format(dayLayout)]; got != 2+4+3 {
		t.Fatalf("the file counts %d news today, want %d (the first contact counts none)", got, 2+4+3)
	}
}
