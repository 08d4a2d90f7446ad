package watch

import (
	"context"
	"fmt"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
)

// Run watches until ctx is canceled (SIGINT, SIGTERM): a running heartbeat
// then stops as a signaled heartbeat does, saving what it did, and Run
// returns nil. lines are the person's commands, one a line (nil or closed:
// none); a value on hup reads mesh.yaml again.
func (w *Watcher) Run(ctx context.Context, lines <-chan string, hup <-chan struct{}) error {
	w.start()
	timer := w.schedule(w.interval)
	if w.enabled {
		timer = w.schedule(0)
	}
	var done chan tickResult
	for {
		select {
		case <-ctx.Done():
			if done != nil {
				w.finish(<-done)
			}
			w.say(EventStopped, "stopped: state saved")
			return nil
		case <-timer:
			timer = w.schedule(w.interval)
			// A heartbeat still running comes first: "off" then promises
			// that no request is in flight.
			switch {
			case done != nil:
				w.metrics.ticks.WithLabelValues("busy").Inc()
				w.say(EventBusy, "tick skipped: the last heartbeat is still running")
			case !w.enabled:
				w.metrics.ticks.WithLabelValues("off").Inc()
				w.say(EventOff, "tick: polling is off")
			default:
				done = w.startTick(ctx)
			}
			w.status()
		case r := <-done:
			done = nil
			w.finish(r)
			w.status()
		case line, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			if t := w.command(line); t != nil {
				timer = t
			}
		case <-hup:
			if t := w.reload(); t != nil {
				timer = t
			}
			w.status()
		}
	}
}

// schedule starts the timer of the next tick, d from now.
func (w *Watcher) schedule(d time.Duration) <-chan time.Time {
	w.next = w.now().Add(d)
	return w.opts.After(d)
}

// start tells how the watcher starts, and of peers already degraded.
func (w *Watcher) start() {
	// Polling is opt-in (docs/protocol.md §13): say in plain words that
	// nothing happens until a person turns it on, and how.
	msg := fmt.Sprintf("watching %s: polling is off, so no peer is polled until you type /poll on (or set watch.enabled: true in mesh.yaml)", w.opts.Dir)
	if w.enabled {
		msg = fmt.Sprintf("watching %s: polling every %s", w.opts.Dir, w.interval)
	}
	if w.opts.Started != "" {
		msg += "; " + w.opts.Started
	}
	w.say(EventStarted, "%s", msg)
	w.metrics.polling.Set(boolGauge(w.enabled))
	if s, err := w.loadCursors(); err == nil {
		for _, e := range w.health.observe(s.Cursors, 0, 0, w.now().UTC()) {
			w.emit(e)
		}
		w.metrics.degraded.Set(float64(len(w.health.peers)))
	} else {
		w.say(EventError, "read the cursors: %v", err)
	}
	w.status()
}

// status emits the status line.
func (w *Watcher) status() {
	w.metrics.polling.Set(boolGauge(w.enabled))
	inbox := 0
	if items, err := w.queue.List(); err == nil {
		for _, it := range items {
			if it.Status == queue.StatusQueued || it.Status == queue.StatusInProgress {
				inbox++
			}
		}
	}
	s := &Status{Polling: w.enabled, Interval: w.interval.String(), NextTick: w.next.UTC(), Running: w.running,
		Inbox: inbox, Degraded: w.health.degraded()}
	w.emit(Event{Kind: EventStatus, Status: s, Message: s.Line()})
}
