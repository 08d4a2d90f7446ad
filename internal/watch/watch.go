package watch

import (
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
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
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
	LogKey   string                               // signs the node's log (heartbeat.Options.LogKey)
	Events   func(Event)                          // every event, in order; nil: dropped
	// Started is said in the started event, after the polling state (the
	// metrics address, for one).
	Started string
	// Queue is the node's queue when it is not mesh-state/queue/ (the
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

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
