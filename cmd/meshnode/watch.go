package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/watch"
)

func init() {
	register(&command{
		name:    "watch",
		summary: "run the node for good: once polling is on, a heartbeat every interval",
		usage: `Usage: meshnode watch [--dir DIR] [--interval 10m] [--metrics-addr HOST:PORT] [--json] [--log-format text|json] [--log-key FILE]
       meshnode watch --worker [worker flags] [-- COMMAND ARGS...]

Runs the node until stopped. Polling is off by default (docs/protocol.md
§13): watch starts, says so, and polls nobody until a person types /poll on
or mesh.yaml sets watch.enabled: true. Once it is on, every interval
(watch.interval in mesh.yaml, 10m, or --interval) a tick runs one heartbeat
on a fetch client kept across ticks. A tick that finds the node busy
(another heartbeat or watch holds mesh-state/heartbeat.lock) is skipped,
not queued.

On a terminal it prints a status line and an alert when new traces reach the
inbox ("inbox +3: ada/4 …"), and reads slash commands from stdin:
  /poll                           the inbox: id, type, from, status, trace URL
  /poll on | /poll off            start or stop polling
  /poll interval 5m               time between two ticks
  /poll done|fail|skip ID [why]   settle an item, as 'meshnode inbox' does
  /status, /help
Without a terminal (or with --json) the same events are JSON lines on
stdout (docs/watch.md). Nothing in the inbox is settled without a command.

A peer whose circuit breaker opens (3 failed polls in a row) is reported
degraded once, and recovered once when it answers again; so is the network
when most peers fail at once. --metrics-addr serves the counters at
/metrics in the Prometheus text format; without a host (:9464) it listens
on loopback only, and any address beyond loopback is warned of.

SIGHUP reads mesh.yaml again. SIGINT or SIGTERM lets the running heartbeat
stop as a signaled heartbeat does, with its state saved, and exits 0.

With MESHNODE_QUEUE_DSN set, the node's queue is in PostgreSQL: ticks
enqueue there and publish the results workers stored (docs/queue.md).
--worker, first, runs a worker on that queue instead of a node: the same
loop and flags as 'meshnode worker' (run 'meshnode worker -h').

Examples:
  meshnode watch --dir ~/node
  meshnode watch --interval 5m --metrics-addr 127.0.0.1:9464
  meshnode watch --json </dev/null >>watch.log

Flags:
`,
		run: runWatchCmd,
	})
}

// workerMode reports whether args ask for `watch --worker`, and returns
// them without --worker: the worker's own flags. --worker counts only
// before a "--", which starts the scoring command.
func workerMode(args []string) ([]string, bool) {
	for i, a := range args {
		switch a {
		case "--":
			return args, false
		case "--worker", "-worker", "--worker=true", "-worker=true":
			return append(append([]string{}, args[:i]...), args[i+1:]...), true
		}
	}
	return args, false
}

// watchStdin is where slash commands come from; tests replace it.
var watchStdin io.Reader = os.Stdin

type watchOptions struct {
	nodeFlags
	interval    time.Duration
	metricsAddr string
	json        bool
	logFormat   string
	logKey      *string
}

func runWatchCmd(ctx context.Context, e *env, args []string) error {
	if rest, ok := workerMode(args); ok {
		return runWorker(ctx, e, rest)
	}
	var o watchOptions
	fs := newFlagSet("watch")
	o.add(fs)
	fs.Bool("worker", false, "score the node's PostgreSQL queue as 'meshnode worker' does; its flags follow")
	fs.DurationVar(&o.interval, "interval", 0, "time between two ticks (default watch.interval of mesh.yaml, 10m)")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve /metrics in the Prometheus text format on HOST:PORT (:PORT is loopback)")
	fs.BoolVar(&o.json, "json", false, "write events as JSON lines even on a terminal")
	fs.StringVar(&o.logFormat, "log-format", "text", "the heartbeats' log on stderr: text or json")
	o.logKey = addLogKeyFlag(fs)
	if err := parseFlagsNoArgs(e, fs, args); err != nil {
		return err
	}
	if fs.Changed("interval") && (o.interval < watch.MinInterval || o.interval > watch.MaxInterval) {
		return usagef("use an interval like 30s, 10m or 1h", "watch: --interval %s is not between %s and %s", o.interval, watch.MinInterval, watch.MaxInterval)
	}
	// A watching node runs until a signal stops it: that is its normal
	// end, exit 0, not the 130 or 143 of a one-shot command cut short.
	e.untilStopped = true
	return runWatch(ctx, e, o)
}

func runWatch(ctx context.Context, e *env, o watchOptions) error {
	now, err := o.clock(e)
	if err != nil {
		return err
	}
	cfg, err := config.Load(o.dir)
	if err != nil {
		return err
	}
	logger, err := newLogger(e.stderr, o.logFormat, true)
	if err != nil {
		return err
	}
	flag := ""
	if o.logKey != nil {
		flag = *o.logKey
	}
	logKey, err := loadLogKey(flag, o.dir)
	if err != nil {
		return err
	}
	events := watch.JSONLines(e.stdout)
	if e.isTerminal && !o.json {
		events = watch.Text(e.stdout)
	}
	opts := watch.Options{Dir: o.dir, Config: cfg, Interval: o.interval, Now: now, Logger: logger,
		Version: userAgentVersion(), Events: events, LogKey: logKey}
	var ln net.Listener
	if o.metricsAddr != "" {
		if ln, err = listenMetrics(o.metricsAddr, e.stderr); err != nil {
			return usagef("pick another --metrics-addr, like 127.0.0.1:9464", "watch: --metrics-addr: %v", err)
		}
		defer ln.Close()
		opts.Started = fmt.Sprintf("metrics on http://%s/metrics", ln.Addr())
	}
	if _, shared := pgqueue.NodeDSNFromEnv(); shared {
		// The watcher's heartbeats open the file queue themselves, with
		// their own clock; a shared queue is opened once, here.
		q, closeQueue, err := nodeQueue(o.dir, now)
		if err != nil {
			return err
		}
		defer closeQueue()
		opts.Queue = q
	}
	w, err := watch.New(opts)
	if err != nil {
		return err
	}
	if ln != nil {
		stop := serveMetrics(ln, w.Handler())
		defer stop()
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	return w.Run(ctx, readLines(watchStdin), reloads(ctx, hup))
}

// listenMetrics listens on addr for /metrics. An address without a host
// (":9464") means loopback, not every interface as net.Listen has it: the
// counters name peers and hosts, and an operator who wants them served
// wider says where. Any address beyond loopback is said on stderr.
func listenMetrics(addr string, stderr io.Writer) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		fmt.Fprintf(stderr, "meshnode: watch: /metrics is served beyond loopback, on %s: anyone who reaches it can read the node's counters\n", ln.Addr())
	}
	return ln, nil
}

// serveMetrics serves /metrics on ln until stop is called.
func serveMetrics(ln net.Listener, h http.Handler) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "meshnode: metrics: %v\n", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx) //nolint:errcheck // the process is ending
	}
}

// readLines sends the lines of r on a channel closed at its end. A line
// longer than the scanner's buffer ends the reading, not the watcher.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// reloads turns SIGHUPs into reload requests until ctx ends.
func reloads(ctx context.Context, sig <-chan os.Signal) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
				select {
				case out <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}
