package heartbeat

import (
	"fmt"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/presence"
)

func TestQuietPeersArePolledLessOftenAndNewTracesArriveWithinTheirInterval(t *testing.T) {
	w := week{peers: 20, publishers: 3, days: 3}
	res := w.run(t)
	if res.missed > 0 || len(res.late) > 0 {
		t.Fatalf("%d traces never fetched, %d late:\n%v", res.missed, len(res.late), res.late)
	}
	every := w.peers * res.heartbeats
	if res.requests*4 > every {
		t.Errorf("%d manifest requests, more than a quarter of polling every peer every heartbeat (%d)", res.requests, every)
	}
	t.Logf("%d requests of %d (%.1f %%), longest wait %v", res.requests, every, 100*float64(res.requests)/float64(every), res.maxDelay)
}

func TestAdaptiveOffPollsEveryPeerEveryHeartbeat(t *testing.T) {
	w := week{peers: 5, publishers: 1, days: 1, config: "polling:\n  quiet_after: 0\n"}
	res := w.run(t)
	if res.requests != w.peers*res.heartbeats || res.missed > 0 || res.maxDelay > presence.Heartbeat {
		t.Errorf("%d requests, want %d; %d missed; longest wait %v", res.requests, w.peers*res.heartbeats, res.missed, res.maxDelay)
	}
}

func TestSpikeBringsAQuietPeerBackAndIsFlagged(t *testing.T) {
	mesh := newSimMesh(t, 2)
	dir := newNode(t, mesh.roster(), "gossip:\n  enabled: false\n")
	url := fmt.Sprintf("%s/p0/", mesh.URL)
	var sum *report.Summary
	now := testNow
	for b := range 48 * 2 {
		now = testNow.Add(time.Duration(b) * presence.Heartbeat)
		mesh.setNow(now)
		sum = beat(t, dir, now)
	}
	c := loadState(t, dir).Cursors[url]
	if interval := c.IntervalAt(now); interval <= presence.Heartbeat || sum.PeersQuiet == 0 {
		t.Fatalf("after two quiet days: interval %v, %d peers quiet", interval, sum.PeersQuiet)
	}
	// The peer's offset in the quiet schedule comes from a hash of its URL,
	// whose port is the test server's: its next poll may be the next
	// heartbeat, which NextPollAt reports as zero.
	nextPoll := c.NextPollAt(now)
	if nextPoll.IsZero() {
		nextPoll = now.Add(presence.Heartbeat)
	}
	mesh.setNow(now.Add(time.Minute))
	mesh.publish(0, 4)
	// The spike is seen at the peer's next poll, which is its last interval
	// away at most, and flagged then.
	var spiked *report.Summary
	for now = now.Add(presence.Heartbeat); !now.After(nextPoll); now = now.Add(presence.Heartbeat) {
		mesh.setNow(now)
		if s := beat(t, dir, now); len(s.Spikes) > 0 {
			spiked = s
			break
		}
	}
	if spiked == nil || spiked.Spikes[0].URL != url || spiked.Spikes[0].NewToday != 4 || spiked.NewTraces != 4 {
		t.Fatalf("no spike flagged for p0 by its next poll: %+v", spiked)
	}
	// Still spiking hours later: polled every heartbeat, not backed off.
	for range 8 {
		now = now.Add(presence.Heartbeat)
		mesh.setNow(now)
		beat(t, dir, now)
	}
	if c := loadState(t, dir).Cursors[url]; !c.NextPollAt(now).IsZero() {
		t.Errorf("4 hours after a spike: next poll %v, want every heartbeat", c.NextPollAt(now))
	}
}

// BenchmarkAdaptiveWeek simulates a week (336 heartbeats, one every 30
// minutes on a fake clock) of 1,000 peers of which 50 publish one trace a
// day, with the adaptive schedule and with every peer polled every
// heartbeat (polling.quiet_after: 0), alternating. It reports MANIFEST.md
// requests per week, their share of polling everyone every heartbeat, and
// the longest wait from a trace's publication to its fetch; a trace picked
// up later than its peer's interval fails the benchmark. Target (issue
// 11): at most a quarter of the requests. Run with -benchtime=1x.
func BenchmarkAdaptiveWeek(b *testing.B) {
	variants := []struct{ name, config string }{
		{"adaptive", ""},
		{"every-heartbeat", "polling:\n  quiet_after: 0\n"},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			w := week{peers: 1000, publishers: 50, days: 7, config: v.config}
			var res weekResult
			for b.Loop() {
				res = w.run(b)
			}
			if res.missed > 0 || len(res.late) > 0 {
				b.Fatalf("%d traces never fetched, %d late: %v", res.missed, len(res.late), res.late)
			}
			every := w.peers * res.heartbeats
			b.ReportMetric(float64(res.requests), "requests/week")
			b.ReportMetric(100*float64(res.requests)/float64(every), "%-of-every-heartbeat")
			b.ReportMetric(res.maxDelay.Minutes(), "max-wait-min")
		})
	}
}
