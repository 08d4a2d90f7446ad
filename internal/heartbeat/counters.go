package heartbeat

import (
	"context"
	"math"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/queue"
)

// queueStatuses are the statuses queue_depth always reports, zeros included.
var queueStatuses = []string{queue.StatusQueued, queue.StatusInProgress, queue.StatusDone, queue.StatusFailed, queue.StatusSkipped}

// timedPoll polls every peer (pollAll) and keeps how long that took: the
// poll latency of this run.
func (n *job) timedPoll(ctx context.Context, peers []peer) []*pollResult {
	start := time.Now()
	results := n.pollAll(ctx, peers)
	n.sum.PollLatencySeconds = seconds(time.Since(start))
	return results
}

// countPolling fills the summary's polling counters (docs/contracts.md):
// what the fetch client counted since before (the client may be kept
// across heartbeats, so only this run's share), the longest cooldown a host
// still imposes, and the queue by status.
func (n *job) countPolling(before fetch.Stats) {
	after := n.client.Stats()
	n.sum.RequestsTotal = after.Requests - before.Requests
	n.sum.RateLimitHits = after.RateLimitHits - before.RateLimitHits
	n.sum.RequestsFailed = map[string]int64{}
	for k, v := range after.Failed {
		if d := v - before.Failed[k]; d > 0 {
			n.sum.RequestsFailed[string(k)] = d
		}
	}
	now := n.opts.Now()
	var backoff time.Duration
	for _, h := range n.client.Hosts() {
		backoff = max(backoff, h.CooldownUntil.Sub(now))
	}
	n.sum.BackoffSeconds = seconds(backoff)
	n.sum.QueueDepth = map[string]int{}
	for _, s := range queueStatuses {
		n.sum.QueueDepth[s] = 0
	}
	items, err := n.queueItems()
	if err != nil {
		n.log.Warn("queue depth unknown", "err", err.Error())
		return
	}
	for _, it := range items {
		n.sum.QueueDepth[it.Status]++
	}
	for status, count := range n.settled {
		n.sum.QueueDepth[status] += count
	}
	n.sum.InboxSize = n.sum.QueueDepth[queue.StatusQueued] + n.sum.QueueDepth[queue.StatusInProgress]
}

// seconds is d in seconds, to the millisecond.
func seconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}
