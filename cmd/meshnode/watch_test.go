package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/watch"
)

// countingPeer is a node made with the CLI, served on loopback, that counts
// the requests it gets. While stall is set it holds every request for its
// MANIFEST.md until the client gives up, saying so on stalled.
type countingPeer struct {
	*httptest.Server
	dir      string
	requests atomic.Int64
	traces   atomic.Int64 // requests for a file under traces/
	stall    atomic.Bool
	stalled  chan struct{}
}

func newCountingPeer(t *testing.T, name string) *countingPeer {
	t.Helper()
	p := &countingPeer{dir: filepath.Join(t.TempDir(), name), stalled: make(chan struct{}, 1)}
	files := http.FileServer(http.Dir(p.dir))
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		if p.stall.Load() && r.URL.Path == "/MANIFEST.md" {
			select {
			case p.stalled <- struct{}{}:
			default:
			}
			<-r.Context().Done()
			return
		}
		if strings.HasPrefix(r.URL.Path, "/traces/") {
			p.traces.Add(1)
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	cliT(t, "init", "--dir", p.dir, "--agent", name, "--url", p.URL+"/")
	publishTrace(t, p.dir, "What "+name+" found first")
	cliT(t, "heartbeat", "--dir", p.dir)
	return p
}

// watchProcess is `meshnode watch --json` running as a real process, its
// events read line by line.
type watchProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan watch.Event
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startWatch(t *testing.T, args ...string) *watchProcess {
	t.Helper()
	bin, err := exec.LookPath("meshnode") // the test binary, put on PATH by testscript.Main
	if err != nil {
		t.Skip("no meshnode on PATH: ", err)
	}
	p := &watchProcess{t: t, cmd: exec.Command(bin, append([]string{"watch", "--json"}, args...)...),
		events: make(chan watch.Event, 1000), stderr: &syncBuffer{}}
	p.cmd.Stderr = p.stderr
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	go func() {
		defer close(p.events)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var e watch.Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				e = watch.Event{Kind: "not json", Message: sc.Text()}
			}
			p.events <- e
		}
	}()
	return p
}

// next returns the next event of one of the kinds, and how many events of
// kind count went by on the way.
func (p *watchProcess) next(count string, kinds ...string) (watch.Event, int) {
	p.t.Helper()
	n := 0
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				p.t.Fatalf("watch ended before a %v event; stderr:\n%s", kinds, p.stderr.String())
			}
			if e.Kind == "not json" || e.Kind == watch.EventError {
				p.t.Fatalf("watch wrote %q", e.Message)
			}
			if e.Kind == count {
				n++
			}
			for _, k := range kinds {
				if e.Kind == k {
					return e, n
				}
			}
		case <-time.After(60 * time.Second): // a hang guard, not a measure
			p.t.Fatalf("no %v event; stderr:\n%s", kinds, p.stderr.String())
		}
	}
}

func (p *watchProcess) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// The acceptance test, on the real process: an alert naming a
// trace published mid-run within two ticks, no request for three ticks
// after /poll off, /metrics counting up, and SIGTERM ending it with exit 0
// and the cursors saved.
func TestWatchAlertsPausesServesMetricsAndStopsOnSIGTERM(t *testing.T) {
	bob := newCountingPeer(t, "bob")
	dir := newNode(t, map[string]string{"bob": bob.URL})
	p := startWatch(t, "--dir", dir, "--interval", "1s", "--metrics-addr", "127.0.0.1:0")

	started, _ := p.next("", watch.EventStarted)
	m := regexp.MustCompile(`http://[0-9.:]+/metrics`).FindString(started.Message)
	if !strings.Contains(started.Message, "polling is off") || m == "" {
		t.Fatalf("started: %q, want polling is off and the metrics URL", started.Message)
	}
	if e, _ := p.next("", watch.EventOff); e.Kind != watch.EventOff || bob.requests.Load() != 0 {
		t.Fatalf("polled before /poll on: %d requests", bob.requests.Load())
	}

	p.send("/poll on")
	first, _ := p.next("", watch.EventAlert)
	if first.Message != "inbox +1: bob/1" {
		t.Fatalf("first alert %q, want bob/1", first.Message)
	}
	before := scrapeMetric(t, m, "meshnode_requests_total")

	publishTrace(t, bob.dir, "What bob found next")
	cliT(t, "heartbeat", "--dir", bob.dir)
	alert, ticks := p.next(watch.EventTick, watch.EventAlert)
	if alert.Message != "inbox +1: bob/2" || ticks > 2 {
		t.Fatalf("alert %q after %d ticks, want bob/2 within two", alert.Message, ticks)
	}
	if after := scrapeMetric(t, m, "meshnode_requests_total"); after <= before {
		t.Fatalf("meshnode_requests_total %v then %v: not rising as the mesh is polled", before, after)
	}

	p.send("/poll off")
	p.next("", watch.EventOff) // a tick running when /poll off came may end first
	quiet := bob.requests.Load()
	for range 3 {
		p.next("", watch.EventOff)
	}
	if n := bob.requests.Load() - quiet; n != 0 {
		t.Fatalf("%d requests in three ticks after /poll off", n)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.next("", watch.EventStopped)
	err := p.cmd.Wait()
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d (%v) after SIGTERM, want 0; stderr:\n%s", code, err, p.stderr.String())
	}
	cursors, err := state.Load(filepath.Join(dir, "mesh-state", "polling-cursors.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := cursors.Cursor(bob.URL + "/"); c.LastSeenSeq != 2 {
		t.Fatalf("bob's cursor after SIGTERM = %+v, want seq 2 saved", c)
	}
}

func scrapeMetric(t *testing.T, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no %s in /metrics:\n%s", name, data)
	return 0
}

func TestWatchRefusesABadInterval(t *testing.T) {
	dir := newNode(t, nil)
	code, _, stderr := runSetupCLI(t, "watch", "--dir", dir, "--interval", "1ms")
	if code != exitUsage || !strings.Contains(stderr, "--interval 1ms is not between 1s and 24h") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// midTick starts watch on dir and returns once its first tick has polled
// bob, his trace fetched, and a request to the stalled peer cy is in
// flight. The node polls one peer at a time, bob first (newNode lists the
// peers by name, and polls start in that order of hosts), so cy's request
// comes after bob's poll ended: a sleep of 200 ms stood for that, and
// under load a signal could still come while bob's answer was being read.
func midTick(t *testing.T, dir string, bob, cy *countingPeer) *watchProcess {
	t.Helper()
	cfg := filepath.Join(dir, "mesh.yaml")
	writeT(t, dir, "mesh.yaml", setupReadFile(t, cfg)+"heartbeat:\n  concurrency: 1\n")
	cy.stall.Store(true)
	p := startWatch(t, "--dir", dir, "--interval", "1h")
	p.next("", watch.EventStarted)
	before := bob.traces.Load()
	p.send("/poll on")
	select {
	case <-cy.stalled:
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("no request reached the stalled peer")
	}
	if bob.traces.Load() == before {
		t.Fatal("cy was polled before bob's trace was fetched: the polls did not run one at a time, bob first")
	}
	return p
}

// TestWatchSIGTERMDuringASlowRequest sends SIGTERM while a peer holds a
// request: watch gives the request up, saves what the tick did (bob's
// cursor and trace) and exits 0 (in milliseconds: docs/watch.md).
func TestWatchSIGTERMDuringASlowRequest(t *testing.T) {
	bob, cy := newCountingPeer(t, "bob"), newCountingPeer(t, "cy")
	dir := newNode(t, map[string]string{"bob": bob.URL, "cy": cy.URL})
	p := midTick(t, dir, bob, cy)
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := p.cmd.Wait()
	took := time.Since(start)
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d (%v) after SIGTERM, want 0; stderr:\n%s", code, err, p.stderr.String())
	}
	// The stalled request would hold until the request timeout (20 s):
	// exiting well before it shows that watch gave the request up rather
	// than wait for it. How fast it exits is measured, not asserted
	// (milliseconds on an idle machine; a loaded one under -race is slower).
	t.Logf("exited %v after SIGTERM", took.Round(time.Millisecond))
	if took >= 10*time.Second {
		t.Errorf("exited %v after SIGTERM: it waited for the stalled request", took)
	}
	var stopped bool
	for e := range p.events {
		stopped = stopped || e.Kind == watch.EventStopped
	}
	if !stopped {
		t.Error("no stopped event")
	}
	cursors, err := state.Load(filepath.Join(dir, "mesh-state", "polling-cursors.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := cursors.Cursor(bob.URL + "/"); c.LastSeenSeq != 1 {
		t.Fatalf("bob's cursor after SIGTERM = %+v, want seq 1 saved", c)
	}
	if got := inboxOf(t, dir); len(got) != 1 || got[0].From != "bob" {
		t.Fatalf("inbox after SIGTERM = %+v, want bob's trace", got)
	}
}

// TestWatchKilledAndRestartedEndsAsAnUninterruptedRun kills watch with
// SIGKILL in the middle of a tick, restarts it, and compares its inbox and
// cursors, timestamps aside, with a twin node's that ran one tick
// uninterrupted.
func TestWatchKilledAndRestartedEndsAsAnUninterruptedRun(t *testing.T) {
	bob, cy := newCountingPeer(t, "bob"), newCountingPeer(t, "cy")
	peers := map[string]string{"bob": bob.URL, "cy": cy.URL}
	plain, killed := newNode(t, peers), newNode(t, peers)
	oneTick(t, plain)

	p := midTick(t, killed, bob, cy)
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	if c := cursorsOf(t, killed); len(c) != 0 {
		t.Fatalf("cursors saved before the kill: %+v; the kill must come mid-tick", c)
	}
	cy.stall.Store(false)
	oneTick(t, killed)

	want, got := inboxOf(t, plain), inboxOf(t, killed)
	if len(want) != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("inbox after kill and restart:\n%+v\nuninterrupted:\n%+v", got, want)
	}
	wantC, gotC := cursorsOf(t, plain), cursorsOf(t, killed)
	if len(wantC) != 2 || !reflect.DeepEqual(gotC, wantC) {
		t.Errorf("cursors after kill and restart:\n%+v\nuninterrupted:\n%+v", gotC, wantC)
	}
}

// oneTick runs watch on dir for one tick and stops it with SIGTERM.
func oneTick(t *testing.T, dir string) {
	t.Helper()
	p := startWatch(t, "--dir", dir, "--interval", "1h")
	p.next("", watch.EventStarted)
	p.send("/poll on")
	if e, _ := p.next("", watch.EventTick); e.Tick.PeersFailed != 0 {
		t.Fatalf("tick: %s", e.Message)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("watch: %v; stderr:\n%s", err, p.stderr.String())
	}
}

// inboxOf is dir's queue without its times.
func inboxOf(t *testing.T, dir string) []queue.Item {
	t.Helper()
	items, err := queue.Open(filepath.Join(dir, "mesh-state", "queue.json")).List()
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		items[i].QueuedAt, items[i].UpdatedAt, items[i].Submitted = time.Time{}, time.Time{}, time.Time{}
	}
	return items
}

// cursorsOf is dir's cursors without their times.
func cursorsOf(t *testing.T, dir string) map[string]state.Cursor {
	t.Helper()
	s, err := state.Load(filepath.Join(dir, "mesh-state", "polling-cursors.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]state.Cursor{}
	for u, c := range s.Cursors {
		c := *c
		c.LastPolled, c.LastSuccess, c.FirstFailure, c.LastNews, c.NextPoll, c.LogProbed = time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}
		out[u] = c
	}
	return out
}

func TestMetricsAddrWithoutAHostListensOnLoopbackAndWiderIsWarned(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		loopback bool
	}{
		{":0", true},
		{"127.0.0.1:0", true},
		{"[::1]:0", true},
		{"0.0.0.0:0", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			var stderr strings.Builder
			ln, err := listenMetrics(tc.addr, &stderr)
			if err != nil {
				if strings.Contains(tc.addr, "::1") {
					t.Skip("no IPv6 loopback: ", err)
				}
				t.Fatal(err)
			}
			defer ln.Close()
			ip := ln.Addr().(*net.TCPAddr).IP
			if ip.IsLoopback() != tc.loopback {
				t.Errorf("--metrics-addr %s listens on %s, want loopback %v", tc.addr, ln.Addr(), tc.loopback)
			}
			warned := strings.Contains(stderr.String(), "beyond loopback")
			if warned == tc.loopback {
				t.Errorf("--metrics-addr %s: stderr %q, want a warning %v", tc.addr, stderr.String(), !tc.loopback)
			}
		})
	}
}
