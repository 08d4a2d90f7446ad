package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/state"
)

// Options configure a Watcher.
type Options struct {
	Dir    string
	Config *config.Config
	// Reload reads mesh.yaml again, on SIGHUP; nil: config.Load(Dir).
	Reload func() (*config.Config, error)
	// Interval, when set, is the time between ticks instead of
	// watch.interval (the --interval flag); a reload leaves it.
	Interval time.Duration
	Now      func() time.Time                     // nil: time.Now
	After    func(time.Duration) <-chan time.Time // the ticker; nil: time.After
	Logger   *slog.Logger                         // the heartbeats' log; nil: discarded
	Version  string                               // for the User-Agent
	Events   func(Event)                          // every event, in order; nil: dropped
	// Started is said in the started event, after the polling state (the
	// metrics address, for one).
	Started string
	// Queue is the node's queue when it is not mesh-state/queue.json (the
	// PostgreSQL store of docs/queue.md): the inbox the watcher reads and
	// the store its heartbeats use. nil: the file.
	Queue queue.Store
}

// Watcher is a long-running node. Run drives it; everything else it does
// happens on Run's goroutine, except the heartbeat of a tick and the
// metrics scrapes.
type Watcher struct {
	opts     Options
	cfg      *config.Config
	queue    queue.Store
	enabled  bool
	interval time.Duration
	file     config.Watch // watch.* as mesh.yaml said when last read
	next     time.Time
	running  bool
	known    map[string]bool // IDs of the inbox items already told of, pruned to what the queue holds
	health   health
	metrics  *metrics
	rebuild  bool // build a new fetch client before the next tick (a reload)

	mu      sync.Mutex // guards client and retired, read by metrics scrapes
	client  *fetch.Client
	retired fetch.Stats // counters of the clients replaced by reloads
}

// New makes a Watcher of the node in opts.Dir. It reads the inbox, so that
// only items queued from now on raise an alert, and the cursors, so that a
// peer already degraded is told of once when Run starts.
func New(opts Options) (*Watcher, error) {
	if opts.Config == nil {
		return nil, errors.New("watch: no config")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Events == nil {
		opts.Events = func(Event) {}
	}
	if opts.Reload == nil {
		opts.Reload = func() (*config.Config, error) { return config.Load(opts.Dir) }
	}
	w := &Watcher{opts: opts, cfg: opts.Config, file: opts.Config.Watch, enabled: opts.Config.Watch.Enabled,
		interval: opts.Config.Watch.Interval, known: map[string]bool{}}
	if opts.Interval > 0 {
		w.interval = opts.Interval
	}
	w.queue = opts.Queue
	if w.queue == nil {
		q := queue.Open(filepath.Join(opts.Dir, filepath.FromSlash(node.QueueFile)))
		q.Now = opts.Now
		w.queue = q
	}
	w.client = heartbeat.NewClient(w.cfg, opts.Version, opts.Now)
	w.metrics = newMetrics(w)
	items, err := w.queue.List()
	if err != nil {
		return nil, fmt.Errorf("watch: read the inbox: %w", err)
	}
	for _, it := range items {
		w.known[it.ID] = true
	}
	w.metrics.setQueue(items)
	return w, nil
}

// Handler serves the metrics in the Prometheus text format.
func (w *Watcher) Handler() http.Handler { return w.metrics.handler() }

func (w *Watcher) now() time.Time { return w.opts.Now() }

func (w *Watcher) emit(e Event) {
	if e.Time.IsZero() {
		e.Time = w.now().UTC()
	}
	w.opts.Events(e)
}

func (w *Watcher) say(kind, format string, args ...any) {
	w.emit(Event{Kind: kind, Message: fmt.Sprintf(format, args...)})
}

// tickResult is what a tick's heartbeat returned.
type tickResult struct {
	sum *report.Summary
	err error
	dur time.Duration
}

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
	msg := fmt.Sprintf("watching %s: polling off; turn it on with /poll on or watch.enabled in mesh.yaml", w.opts.Dir)
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

// startTick runs one heartbeat on its own goroutine, with the kept client.
func (w *Watcher) startTick(ctx context.Context) chan tickResult {
	if w.rebuild {
		w.replaceClient()
	}
	w.running = true
	done := make(chan tickResult, 1)
	opts := heartbeat.Options{Dir: w.opts.Dir, Config: w.cfg, Now: w.opts.Now, Logger: w.opts.Logger,
		Client: w.currentClient(), Version: w.opts.Version, NoWait: true, Queue: w.opts.Queue}
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

// alert tells of the inbox items not seen before, in one line, and
// forgets the items the queue no longer holds.
func (w *Watcher) alert() {
	items, err := w.queue.List()
	if err != nil {
		w.say(EventError, "read the inbox: %v", err)
		return
	}
	w.metrics.setQueue(items)
	var fresh []Item
	held := make(map[string]bool, len(items))
	for _, it := range items {
		held[it.ID] = true
		if !w.known[it.ID] {
			w.known[it.ID] = true
			fresh = append(fresh, itemOf(it))
		}
	}
	// Items the queue dropped (settled, past queue.SettledRetention) are
	// forgotten, so known never outgrows the queue.
	for id := range w.known {
		if !held[id] {
			delete(w.known, id)
		}
	}
	if len(fresh) > 0 {
		w.emit(Event{Kind: EventAlert, Items: fresh, Message: alertLine(fresh)})
	}
}

// alertLine is "inbox +3: ada/4 bob/7 cy/2", at most five names.
func alertLine(items []Item) string {
	line := fmt.Sprintf("inbox +%d:", len(items))
	for i, it := range items {
		if i == 5 {
			return line + " …"
		}
		line += fmt.Sprintf(" %s/%d", it.From, it.Seq)
	}
	return line
}

func itemOf(it queue.Item) Item {
	return Item{ID: it.ID, Type: it.Type, From: it.From, Seq: it.Seq, Status: it.Status, TraceURL: it.TraceURL}
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

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
