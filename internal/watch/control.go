package watch

import (
	"errors"
	"fmt"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
)

// settleStatus maps the words of /poll done|fail|skip to queue statuses, as
// `meshnode inbox` does.
var settleStatus = map[string]string{VerbDone: queue.StatusDone, VerbFail: queue.StatusFailed, VerbSkip: queue.StatusSkipped}

// command carries out one line a person typed. It returns the new tick
// timer when the command changed when the next tick comes.
func (w *Watcher) command(line string) <-chan time.Time {
	c, err := ParseCommand(line)
	if err != nil {
		w.say(EventError, "%v", err)
		return nil
	}
	switch c.Verb {
	case "":
		return nil
	case VerbHelp:
		w.say(EventHelp, "%s", Help)
		return nil
	case VerbStatus:
		w.status()
		return nil
	case VerbList:
		w.list()
		return nil
	case VerbDone, VerbFail, VerbSkip:
		w.settle(c)
		return nil
	}
	return w.poll(c)
}

// poll turns polling on or off or changes the interval. Turning it on
// ticks at once; a new interval counts from now.
func (w *Watcher) poll(c Command) <-chan time.Time {
	var timer <-chan time.Time
	switch c.Verb {
	case VerbOn:
		w.enabled = true
		timer = w.schedule(0)
		w.say(EventPoll, "polling on, every %s", w.interval)
	case VerbOff:
		w.enabled = false
		w.say(EventPoll, "polling off: no request until /poll on")
	case VerbInterval:
		w.interval = c.Interval
		timer = w.schedule(c.Interval)
		w.say(EventPoll, "polling every %s", c.Interval)
	}
	w.status()
	return timer
}

func (w *Watcher) list() {
	items, err := w.queue.List()
	if err != nil {
		w.say(EventError, "read the inbox: %v", err)
		return
	}
	w.metrics.setQueue(items)
	out := make([]Item, 0, len(items))
	for _, it := range items {
		out = append(out, itemOf(it))
	}
	msg := fmt.Sprintf("inbox: %d items", len(out))
	if len(out) == 0 {
		msg = "the inbox is empty: the heartbeat queues peers' pending traces here"
	}
	w.emit(Event{Kind: EventInbox, Items: out, Message: msg})
}

// settle records a person's decision on one item through the queue's
// settle path, as `meshnode inbox done|fail|skip` does.
func (w *Watcher) settle(c Command) {
	reason := c.Reason
	if reason == "" {
		reason = "marked " + c.Verb + " by hand"
	}
	err := queue.Set(w.queue, c.ID, settleStatus[c.Verb], reason, w.now().UTC())
	if errors.Is(err, queue.ErrNotFound) {
		w.say(EventError, "no item %q in the inbox: type /poll for the list", clip(c.ID))
		return
	}
	if err != nil {
		w.say(EventError, "/poll %s %s: %v", c.Verb, clip(c.ID), err)
		return
	}
	var settled []Item
	if items, err := w.queue.List(); err == nil {
		w.metrics.setQueue(items)
		for _, it := range items {
			if it.ID == c.ID {
				settled = append(settled, itemOf(it))
			}
		}
	}
	w.emit(Event{Kind: EventSettled, Items: settled, Message: fmt.Sprintf("%s: %s (%s)", c.ID, settleStatus[c.Verb], reason)})
	w.status()
}

// reload reads mesh.yaml again. A watch.* value the file changed wins over
// what a person set at runtime; one it left alone does not (docs/watch.md).
// It returns the new tick timer when the interval or polling changed.
func (w *Watcher) reload() <-chan time.Time {
	cfg, err := w.opts.Reload()
	if err != nil {
		w.say(EventError, "reload mesh.yaml: %v (the previous settings stay)", err)
		return nil
	}
	old := w.file
	w.cfg, w.file, w.rebuild = cfg, cfg.Watch, true
	var timer <-chan time.Time
	if cfg.Watch.Interval != old.Interval && w.opts.Interval == 0 {
		w.interval = cfg.Watch.Interval
		timer = w.schedule(w.interval)
	}
	if cfg.Watch.Enabled != old.Enabled {
		w.enabled = cfg.Watch.Enabled
		if w.enabled {
			timer = w.schedule(0)
		}
	}
	state := "off"
	if w.enabled {
		state = "on, every " + w.interval.String()
	}
	w.say(EventReloaded, "reloaded mesh.yaml: polling %s", state)
	return timer
}
