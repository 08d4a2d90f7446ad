package watch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
)

// tickResult is what a tick's heartbeat returned.
type tickResult struct {
	sum *report.Summary
	err error
	dur time.Duration
}

// startTick runs one heartbeat on its own goroutine, with the kept client.
func (w *Watcher) startTick(ctx context.Context) chan tickResult {
	if w.rebuild {
		w.replaceClient()
	}
	w.running = true
	done := make(chan tickResult, 1)
	opts := heartbeat.Options{Dir: w.opts.Dir, Config: w.cfg, Now: w.opts.Now, Logger: w.opts.Logger,
		Client: w.currentClient(), Version: w.opts.Version, NoWait: true, Queue: w.opts.Queue, LogKey: w.opts.LogKey}
	go func() {
		start := time.Now()
		sum, err := heartbeat.Run(ctx, opts)
		done <- tickResult{sum: sum, err: err, dur: time.Since(start)}
	}()
	return done
}

// finish tells what a tick did: its counts, new inbox items, and degraded
// or recovered peers.
func (w *Watcher) finish(r tickResult) {
	w.running = false
	switch {
	case errors.Is(r.err, node.ErrLocked):
		w.metrics.ticks.WithLabelValues("busy").Inc()
		w.say(EventBusy, "tick skipped: another heartbeat holds the node (%s)", node.LockFile)
		return
	case r.err != nil:
		w.metrics.ticks.WithLabelValues("error").Inc()
		w.say(EventError, "tick failed: %v", r.err)
		return
	}
	s := r.sum
	w.metrics.ticks.WithLabelValues("ran").Inc()
	w.metrics.traces.Add(float64(s.Verified))
	w.metrics.dups.Add(float64(s.Duplicates))
	w.metrics.latency.Observe(r.dur.Seconds())
	t := &Tick{PeersPolled: s.PeersPolled, PeersFailed: s.PeersFailed, NewTraces: s.NewTraces, Verified: s.Verified,
		Duplicates: s.Duplicates, Queued: s.Queued, Seconds: r.dur.Round(time.Millisecond).Seconds(), Interrupted: s.Interrupted}
	w.emit(Event{Kind: EventTick, Tick: t, Message: fmt.Sprintf("tick: %d peers polled, %d failed, %d new traces, %d queued (%.1fs)",
		t.PeersPolled, t.PeersFailed, t.NewTraces, t.Queued, t.Seconds)})
	w.alert()
	if st, err := w.loadCursors(); err != nil {
		w.say(EventError, "read the cursors: %v", err)
	} else {
		for _, e := range w.health.observe(st.Cursors, s.PeersPolled, s.PeersFailed, w.now().UTC()) {
			w.emit(e)
		}
		w.metrics.degraded.Set(float64(len(w.health.peers)))
	}
}

func (w *Watcher) loadCursors() (*state.State, error) {
	return state.Load(filepath.Join(w.opts.Dir, filepath.FromSlash(node.CursorsFile)))
}

func (w *Watcher) currentClient() *fetch.Client {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.client
}

// replaceClient builds the fetch client again from the reloaded config; it
// runs only between ticks, so the old client's counters are final.
func (w *Watcher) replaceClient() {
	c := heartbeat.NewClient(w.cfg, w.opts.Version, w.opts.Now)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.retired = addStats(w.retired, w.client.Stats())
	w.client = c
	w.rebuild = false
}

// fetchStats are the counters of every client the watcher used, and the
// current client's hosts.
func (w *Watcher) fetchStats() (fetch.Stats, map[string]fetch.HostState) {
	w.mu.Lock()
	c, retired := w.client, w.retired
	w.mu.Unlock()
	return addStats(retired, c.Stats()), c.Hosts()
}
