package watch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/state"
)

var testStart = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

// harness runs a Watcher on a node that knows peers, with a ticker and a
// clock the test drives and its events on a channel.
type harness struct {
	t      *testing.T
	dir    string
	w      *Watcher
	ticks  chan time.Time
	lines  chan string
	hup    chan struct{}
	events chan Event
	cancel context.CancelFunc
	done   chan error

	mu  sync.Mutex
	now time.Time
}

func newHarness(t *testing.T, extra string, peers ...*fakePeer) *harness {
	t.Helper()
	return newHarnessWith(t, extra, nil, peers...)
}

// newHarnessWith is newHarness with set changing the Watcher's options.
func newHarnessWith(t *testing.T, extra string, set func(*Options), peers ...*fakePeer) *harness {
	t.Helper()
	dir := t.TempDir()
	var agents strings.Builder
	agents.WriteString("# name | trace_url | joined\n")
	for _, p := range peers {
		fmt.Fprintf(&agents, "%s | %s | 2026-02-01\n", p.name, p.url())
	}
	writeFile(t, dir, "AGENTS.md", agents.String())
	writeFile(t, dir, "mesh.yaml", "agent: tester\nurl: http://127.0.0.1:1/tester/\nallow_private_addresses: true\n"+
		"scorer: manual\npolling:\n  quiet_after: 0\n"+extra)
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: dir, ticks: make(chan time.Time), lines: make(chan string), hup: make(chan struct{}),
		events: make(chan Event, 1000), done: make(chan error, 1), now: testStart}
	opts := Options{Dir: dir, Config: cfg, Now: h.clock, After: func(time.Duration) <-chan time.Time { return h.ticks },
		Events: func(e Event) { h.events <- e }}
	if set != nil {
		set(&opts)
	}
	h.w, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- h.w.Run(ctx, h.lines, h.hup) }()
	t.Cleanup(h.stop)
	h.until(EventStatus)
	return h
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) clock() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

func (h *harness) advance(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.now = h.now.Add(d)
}

func (h *harness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	if err := <-h.done; err != nil {
		h.t.Errorf("Run: %v", err)
	}
}

// until collects events up to and including the first of the given kinds.
func (h *harness) until(kinds ...string) []Event {
	h.t.Helper()
	var got []Event
	for {
		select {
		case e := <-h.events:
			got = append(got, e)
			for _, k := range kinds {
				if e.Kind == k {
					return got
				}
			}
		case <-time.After(30 * time.Second): // a hang guard, not a measure
			h.t.Fatalf("no %v event; got %+v", kinds, got)
		}
	}
}

// tick fires the ticker and returns the events up to the tick's end: ran,
// off, skipped or failed.
func (h *harness) tick() []Event {
	h.t.Helper()
	h.ticks <- h.clock()
	ev := h.until(EventTick, EventOff, EventBusy, EventError)
	// The status line closes every tick; collect it so the next tick's
	// events start clean.
	return append(ev, h.until(EventStatus)...)
}

func (h *harness) send(line string, kinds ...string) []Event {
	h.t.Helper()
	h.lines <- line
	return h.until(kinds...)
}

func only(ev []Event, kind string) []Event {
	var out []Event
	for _, e := range ev {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func TestPeerPublishingMidRunRaisesOneAlertNamingTheTrace(t *testing.T) {
	ada := newPeer(t, "ada", 2)
	h := newHarness(t, "watch:\n  enabled: true\n", ada)
	first := only(h.tick(), EventAlert)
	if len(first) != 1 || first[0].Message != "inbox +2: ada/1 ada/2" {
		t.Fatalf("first tick alerts = %+v, want one naming ada/1 and ada/2", first)
	}
	if alerts := only(h.tick(), EventAlert); len(alerts) != 0 {
		t.Fatalf("a tick with nothing new alerted: %+v", alerts)
	}
	ada.publish()
	h.advance(time.Minute)
	alerts := only(h.tick(), EventAlert)
	if len(alerts) != 1 || alerts[0].Message != "inbox +1: ada/3" || alerts[0].Items[0].TraceURL != ada.url()+"traces/003.md" {
		t.Fatalf("alerts after ada published = %+v, want one naming ada/3", alerts)
	}
}

func TestPollOffStopsRequestsUntilPollOn(t *testing.T) {
	ada := newPeer(t, "ada", 1)
	h := newHarness(t, "", ada)
	for range 3 {
		if ev := h.tick(); len(only(ev, EventOff)) != 1 {
			t.Fatalf("tick with polling off by default: %+v", ev)
		}
	}
	if n := ada.count(); n != 0 {
		t.Fatalf("%d requests before polling was turned on", n)
	}
	h.send("/poll on", EventStatus)
	h.tick()
	if ada.count() == 0 {
		t.Fatal("no request after /poll on")
	}
	h.send("/poll off", EventStatus)
	before := ada.count()
	for range 3 {
		h.advance(time.Minute)
		if ev := h.tick(); len(only(ev, EventOff)) != 1 {
			t.Fatalf("tick after /poll off: %+v", ev)
		}
	}
	if n := ada.count() - before; n != 0 {
		t.Fatalf("%d requests in 3 ticks after /poll off", n)
	}
}

func TestBreakerOpeningAndClosingTellsOneDegradedAndOneRecovered(t *testing.T) {
	ada, bob := newPeer(t, "ada", 1), newPeer(t, "bob", 1)
	h := newHarness(t, "watch:\n  enabled: true\n", ada, bob)
	h.tick()
	bob.setFailing(true)
	var notices []string
	// A day and an hour between ticks: the breaker's daily backoff after
	// 10 failures (docs/protocol.md §9.1) lets every tick poll bob.
	for i := range 14 {
		if i == 10 {
			bob.setFailing(false)
		}
		h.advance(25 * time.Hour)
		for _, e := range h.tick() {
			if e.Kind == EventDegraded || e.Kind == EventRecovered {
				notices = append(notices, e.Kind+":"+e.Peer)
			}
			if e.Kind == EventStatus && i == 5 && strings.Join(e.Status.Degraded, ",") != "bob" {
				t.Fatalf("status at tick 5 degraded = %v, want [bob]", e.Status.Degraded)
			}
		}
	}
	if strings.Join(notices, " ") != "degraded:bob recovered:bob" {
		t.Fatalf("notices = %v, want one degraded and one recovered for bob", notices)
	}
	if c := loadCursor(t, h.dir, bob.url()); c.FailureCount != 0 {
		t.Fatalf("bob's cursor after recovery: %+v", c)
	}
}

func loadCursor(t *testing.T, dir, url string) *state.Cursor {
	t.Helper()
	s, err := state.Load(filepath.Join(dir, "mesh-state", "polling-cursors.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s.Cursors[url]
}

func TestTickWhileTheNodeIsBusyIsSkippedNotQueued(t *testing.T) {
	ada := newPeer(t, "ada", 1)
	h := newHarness(t, "watch:\n  enabled: true\n", ada)
	unlock, err := node.Lock(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	if ev := h.tick(); len(only(ev, EventBusy)) != 1 {
		t.Fatalf("tick while locked: %+v", ev)
	}
	unlock()
	if n := ada.count(); n != 0 {
		t.Fatalf("%d requests while the node was busy", n)
	}
	if ev := h.tick(); len(only(ev, EventTick)) != 1 || ada.count() == 0 {
		t.Fatalf("tick after the lock was released: %+v", ev)
	}
}

func TestSlashCommandsListAndSettleTheInbox(t *testing.T) {
	ada := newPeer(t, "ada", 2)
	h := newHarness(t, "watch:\n  enabled: true\n", ada)
	alert := only(h.tick(), EventAlert)
	if len(alert) != 1 {
		t.Fatalf("no alert for ada's traces")
	}
	id := alert[0].Items[0].ID
	list := only(h.send("/poll", EventInbox), EventInbox)
	if len(list[0].Items) != 2 || list[0].Items[0].Status != queue.StatusQueued {
		t.Fatalf("inbox = %+v, want ada's two traces queued", list[0].Items)
	}
	ev := h.send("/poll skip "+id+" not for us", EventSettled, EventError)
	last := ev[len(ev)-1]
	if last.Kind != EventSettled || last.Items[0].Status != queue.StatusSkipped {
		t.Fatalf("/poll skip: %+v", ev)
	}
	items, err := h.w.queue.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.ID == id && (it.Status != queue.StatusSkipped || it.Reason != "not for us") {
			t.Fatalf("item after /poll skip: %+v", it)
		}
		if it.ID != id && it.Status != queue.StatusQueued {
			t.Fatalf("an item nobody settled changed: %+v", it)
		}
	}
	if ev := h.send("/poll done 000000000000", EventError); !strings.Contains(ev[len(ev)-1].Message, "no item") {
		t.Fatalf("/poll done of an unknown ID: %+v", ev)
	}
	st := only(h.send("/status", EventStatus), EventStatus)
	if st[0].Status.Inbox != 1 || !st[0].Status.Polling {
		t.Fatalf("status = %+v, want polling on and one item waiting", st[0].Status)
	}
}

func TestReloadTurnsPollingOnWhenMeshYamlSaysSo(t *testing.T) {
	ada := newPeer(t, "ada", 1)
	h := newHarness(t, "", ada)
	data, err := os.ReadFile(filepath.Join(h.dir, "mesh.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, h.dir, "mesh.yaml", string(data)+"watch:\n  enabled: true\n  interval: 5m\n")
	h.hup <- struct{}{}
	st := only(h.until(EventStatus), EventStatus)
	if !st[0].Status.Polling || st[0].Status.Interval != "5m0s" {
		t.Fatalf("status after reload = %+v", st[0].Status)
	}
	h.tick()
	if ada.count() == 0 {
		t.Fatal("no request after mesh.yaml turned polling on")
	}
}

func TestMetricsCountTheFetchClientsRequests(t *testing.T) {
	ada := newPeer(t, "ada", 2)
	h := newHarness(t, "watch:\n  enabled: true\n", ada)
	srv := httptest.NewServer(h.w.Handler())
	defer srv.Close()
	h.tick()
	first := scrape(t, srv.URL)
	if first["meshnode_requests_total"] < 3 || first["meshnode_traces_processed_total"] != 2 || first["meshnode_inbox_size"] != 2 ||
		first[`meshnode_queue_depth{status="queued"}`] != 2 || first["meshnode_poll_latency_seconds_count"] != 1 {
		t.Fatalf("metrics after one tick: %v", first)
	}
	ada.setFailing(true)
	h.advance(time.Minute)
	h.tick()
	second := scrape(t, srv.URL)
	if second["meshnode_requests_total"] <= first["meshnode_requests_total"] || second[`meshnode_requests_failed_total{kind="client_error"}`] < 1 ||
		second[`meshnode_ticks_total{result="ran"}`] != 2 {
		t.Fatalf("metrics did not rise with the second tick: %v", second)
	}
}

// scrape reads /metrics into name{labels} → value.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	r, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}
