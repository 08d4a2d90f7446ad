// Command relaysim simulates, in process, one node of a mesh of -agents
// agents that publish through signed logs (a -publish share of them a
// trace a day, at random times) for -days days after a day of warm-up,
// twice side by side on one fake clock: polling every agent directly on
// today's adaptive schedule, and reading through -relays honest relays.
// It also draws every trace's jury under validation by assignment
// (mesh-2026-4, assign.go), the first -validators agents having standing
// and the node being the first of them, and counts the validations the
// node writes of the traces it read, with assignment and without, and
// the mesh's coverage.
//
// Real code: each agent's ed25519 key and signed checkpoints
// (internal/translog), the relays' logs (relay.Log.Extend) served over
// loopback HTTP and read incrementally by relay.Reader through the fetch
// client (every relay request and byte counted as served), relay.NewView,
// View.Due and relay.Settle, the node's pins (internal/logpin) and
// cursors with the real schedule (state.Cursor.Due, RecordSuccess,
// RecordActivity), the cursors and relays' state loaded and saved at
// every measured heartbeat (state.Load, Save, relay.LoadStore,
// Store.Save), and the juries (signal's Pools.Assignments, each day's
// pool computed by signal from the files dated before it). Modelled: a
// direct poll of an agent, which is not sent over HTTP: one conditional
// request for its checkpoint answered 304 when nothing changed, else the
// checkpoint (250 B), the partial entry bundle (220 B an entry of its
// partial tile) and the new trace (3 KiB); the headers, 400 B a request
// in "bytes with headers"; the validations, counted, not scored or
// written; the pins, kept in memory, not saved. CPU seconds are the
// process's (user + system) while the node's part of each mode runs;
// state is the size of the node's cursor and relay files; files written
// count the files those stores wrote (statefile.SetWriteHook).
//
// The warm-up day is not measured: its two nodes run at once and keep
// their state in memory, saving it at the warm-up's last heartbeat.
// -reload-warmup loads and saves it at every one, as the measured days
// do: slower, with the same requests, bytes, delays and validations, and
// at 600 agents a tenth more files written in the measured day and a
// twelfth less state: reloaded, a cursor file keeps the poll times of the
// poll that last changed more than them (state.Save), where saved once
// from memory it holds its last poll's. -state-in-memory keeps the state
// in memory through the measured days as well, for a mesh too large to
// load and save it at every heartbeat on the machine at hand: the
// traffic and validations are the same (TestStateInMemoryChangesNoTraffic),
// files written are not measured, CPU seconds leave out the state's load
// and save, and "a load and save" is that part measured once, at the
// end, over the state as saved (nothing changed, so nothing written).
//
//	go run ./bench/relaysim -agents 10000 -publish 0.1 -days 1 -relays 2 -validators 1000
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/mod/sumdb/tlog"
	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/bench/internal/static"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/translog"
)

// Modelled sizes of a direct poll (see the package comment).
const (
	checkpointBytes = 250
	entryBytes      = 220
	traceBytes      = 3 << 10
	headerBytes     = 400
)

var start = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

type options struct {
	agents, days, relays, validators int
	publish                          float64
	directPoll                       time.Duration
	seed                             uint64
	reloadWarmup                     bool
	cpuprofile                       string
	assignmentOnly                   bool
	stateInMemory                    bool
}

func main() {
	var o options
	flag.IntVar(&o.agents, "agents", 10000, "agents in the mesh")
	flag.Float64Var(&o.publish, "publish", 0.1, "share of agents publishing a trace each day")
	flag.IntVar(&o.days, "days", 1, "measured days, after a day of warm-up")
	flag.IntVar(&o.relays, "relays", 2, "relays the node reads")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed")
	flag.BoolVar(&o.reloadWarmup, "reload-warmup", false, "load and save the nodes' state at every heartbeat of the warm-up too, as in the measured days (slower; see the package comment)")
	flag.BoolVar(&o.stateInMemory, "state-in-memory", false, "keep the nodes' state in memory through the measured days too, saving it at their last heartbeat: files written and CPU seconds then leave out the state's load and save, which \"CPU s, a load and save\" measures once")
	flag.BoolVar(&o.assignmentOnly, "assignment-only", false, "draw the juries and report the assignment's figures only, without polling")
	flag.IntVar(&o.validators, "validators", 1000, "agents with standing (the founders; the node is the first)")
	flag.DurationVar(&o.directPoll, "direct-poll", relay.DefaultDirectPoll, "relays.direct_poll: the longest an agent a relay vouches for waits for a direct poll")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if err := profiled(o.cpuprofile, func() error { return run(o) }); err != nil {
		fmt.Fprintln(os.Stderr, "relaysim:", err)
		os.Exit(1)
	}
}

// profiled runs f, under the CPU profiler when path names its file.
func profiled(path string, f func() error) error {
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return err
	}
	err = f()
	pprof.StopCPUProfile()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// agent is one agent: its key and how many entries its log holds.
type agent struct {
	url, skey, vkey, origin string
	size                    int64
	publishes               []time.Time // this run's, sorted
	// assigned says, for each of publishes, whether its jury names the
	// node (assign.go).
	assigned []bool
	// signed is the checkpoint the agent signed at size signedSize: an
	// agent signs each tree once, and every relay copies those bytes.
	signed     []byte
	signedSize int64
}

func (a *agent) checkpoint() ([]byte, error) {
	if a.signed != nil && a.signedSize == a.size {
		return a.signed, nil
	}
	cp, err := translog.Sign(translog.Checkpoint{Origin: a.origin, Size: a.size, Root: a.root()}, a.skey)
	if err != nil {
		return nil, err
	}
	a.signed, a.signedSize = cp, a.size
	return cp, nil
}

func (a *agent) root() tlog.Hash { return tlog.RecordHash(fmt.Appendf(nil, "%s %d", a.url, a.size)) }

// counts are one mode's costs over the measured days.
type counts struct {
	requests, bodyBytes int64
	cpu                 time.Duration
	filesWritten        int64
	bytesWritten        int64
	delaySum            time.Duration
	seen                int64
	stateBytes          int64
	reload              time.Duration // reload's
	// validationsAll and validationsAssigned are the validations the node
	// writes of the traces it read: every one not its own (mesh-2026-3),
	// or those whose jury names it (mesh-2026-4).
	validationsAll, validationsAssigned int64
}

func run(o options) error {
	agents, err := makeAgents(o)
	if err != nil {
		return err
	}
	as, err := assign(o, agents)
	if err != nil {
		return err
	}
	if o.assignmentOnly {
		as.report(o)
		return nil
	}
	measured, err := simulate(o, agents)
	if err != nil {
		return err
	}
	report(o, measured, as)
	return nil
}

// simulate runs the warm-up and the measured days, and returns the two
// modes' costs over the measured days: direct, then through relays.
func simulate(o options, agents []*agent) ([2]counts, error) {
	var measured [2]counts
	schedule := state.Schedule{Heartbeat: presence.Heartbeat, QuietAfter: 2 * time.Hour, MaxInterval: 6 * time.Hour, SpikeFactor: 3}
	tmp, err := os.MkdirTemp(scratch(), "relaysim-")
	if err != nil {
		return measured, err
	}
	defer os.RemoveAll(tmp)
	for _, d := range []string{"direct", "relays"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			return measured, err
		}
	}
	direct := newNode(agents, schedule, filepath.Join(tmp, "direct"))
	relayed := newNode(agents, schedule, filepath.Join(tmp, "relays"))
	srv := newSite()
	defer srv.close()
	rs, err := makeRelays(o.relays, srv)
	if err != nil {
		return measured, err
	}
	defer statefile.SetWriteHook(written.add)()
	client := fetch.New(fetch.Options{UserAgent: "relaysim", AllowPrivate: true, Timeout: time.Minute, MaxConnsPerHost: 4})
	beats := (o.days + 1) * int(24*time.Hour/presence.Heartbeat)
	for b := 1; b <= beats; b++ {
		now := start.Add(time.Duration(b) * presence.Heartbeat)
		counting := now.After(start.Add(24 * time.Hour))
		changed := publish(agents, now)
		if err := runRelays(rs, agents, changed); err != nil {
			return measured, err
		}
		rr := &relayRead{relays: rs, client: client, site: srv, directPoll: o.directPoll}
		if !counting {
			// The warm-up is not measured, and the two nodes share
			// nothing a heartbeat writes: they run at once, and keep
			// their state in memory until its last heartbeat saves it
			// (see -reload-warmup).
			persist := o.reloadWarmup || !now.Before(start.Add(24*time.Hour))
			var wg sync.WaitGroup
			wg.Go(func() { direct.beat(now, nil, persist) })
			relayed.beat(now, rr, persist)
			wg.Wait()
			continue
		}
		persist := !o.stateInMemory || b == beats
		measured[0].add(direct.beat(now, nil, persist))
		measured[1].add(relayed.beat(now, rr, persist))
	}
	measured[0].stateBytes = direct.stateBytes()
	measured[1].stateBytes = relayed.stateBytes()
	measured[0].reload = direct.reload()
	measured[1].reload = relayed.reload()
	return measured, nil
}

// scratch is where the nodes' state is saved: memory when the system
// has a tmpfs there, so fsyncs cost nothing the sim does not measure.
func scratch() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm"
	}
	return os.TempDir()
}

func makeAgents(o options) ([]*agent, error) {
	rng := rand.New(rand.NewPCG(o.seed, 2))
	out := make([]*agent, o.agents)
	for i := range out {
		u := fmt.Sprintf("https://a%06d.example/mesh/", i)
		origin, _ := translog.Origin(u)
		skey, vkey, err := translog.GenerateKey(origin)
		if err != nil {
			return nil, err
		}
		a := &agent{url: u, skey: skey, vkey: vkey, origin: origin, size: 1}
		for d := 0; d <= o.days; d++ {
			if rng.Float64() < o.publish {
				a.publishes = append(a.publishes, start.Add(time.Duration(d)*24*time.Hour+time.Duration(rng.Int64N(int64(24*time.Hour)))))
			}
		}
		out[i] = a
	}
	return out, nil
}

// publish grows the logs of the agents that publish in the heartbeat
// before now and returns them.
func publish(agents []*agent, now time.Time) []*agent {
	var out []*agent
	for _, a := range agents {
		for _, p := range a.publishes {
			if p.After(now.Add(-presence.Heartbeat)) && !p.After(now) {
				a.size++
				out = append(out, a)
			}
		}
	}
	return out
}

func (c *counts) add(d counts) {
	c.requests += d.requests
	c.bodyBytes += d.bodyBytes
	c.cpu += d.cpu
	c.filesWritten += d.filesWritten
	c.bytesWritten += d.bytesWritten
	c.delaySum += d.delaySum
	c.seen += d.seen
	c.validationsAll += d.validationsAll
	c.validationsAssigned += d.validationsAssigned
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func report(o options, m [2]counts, as assignment) {
	days := float64(o.days)
	fmt.Printf("relaysim: %d agents, %.0f%% publishing a day, %d relays, relays.direct_poll %v, %d measured day(s) after a day of warm-up\n", o.agents, o.publish*100, o.relays, o.directPoll, o.days)
	fmt.Printf("%-22s %14s %14s %8s\n", "per node per day", "direct", "relays", "ratio")
	row := func(name string, a, b float64, unit string) {
		ratio := "-"
		if b > 0 {
			ratio = fmt.Sprintf("%.1fx", a/b)
		}
		fmt.Printf("%-22s %14s %14s %8s\n", name, fmt.Sprintf("%.0f%s", a, unit), fmt.Sprintf("%.0f%s", b, unit), ratio)
	}
	row("requests", float64(m[0].requests)/days, float64(m[1].requests)/days, "")
	row("body bytes", float64(m[0].bodyBytes)/days, float64(m[1].bodyBytes)/days, "")
	row("bytes with headers", float64(m[0].bodyBytes+headerBytes*m[0].requests)/days, float64(m[1].bodyBytes+headerBytes*m[1].requests)/days, "")
	if o.stateInMemory {
		fmt.Printf("%-22s %14s %14s\n", "files written", "not measured", "(-state-in-memory)")
	} else {
		row("files written", float64(m[0].filesWritten)/days, float64(m[1].filesWritten)/days, "")
		row("bytes written", float64(m[0].bytesWritten)/days, float64(m[1].bytesWritten)/days, "")
	}
	row("state bytes", float64(m[0].stateBytes), float64(m[1].stateBytes), "")
	cpu := "CPU seconds"
	if o.stateInMemory {
		cpu = "CPU s, state in memory"
	}
	fmt.Printf("%-22s %14.2f %14.2f\n", cpu, m[0].cpu.Seconds()/days, m[1].cpu.Seconds()/days)
	fmt.Printf("%-22s %14.2f %14.2f\n", "CPU s, a load and save", m[0].reload.Seconds(), m[1].reload.Seconds())
	row("validations, all", float64(m[0].validationsAll)/days, float64(m[1].validationsAll)/days, "")
	row("validations, assigned", float64(m[0].validationsAssigned)/days, float64(m[1].validationsAssigned)/days, "")
	for i, name := range []string{"direct", "relays"} {
		if m[i].seen > 0 {
			fmt.Printf("mean delay publish→read (%s): %v over %d traces\n", name, (m[i].delaySum / time.Duration(m[i].seen)).Round(time.Minute), m[i].seen)
		}
	}
	as.report(o)
}

// site serves relays' files from memory, with ETags, and counts what it
// served.
type site struct {
	srv      *httptest.Server
	mu       sync.Mutex
	files    map[string][]byte
	requests int64
	bytes    int64
}

func newSite() *site {
	s := &site{files: map[string][]byte{}}
	s.srv = httptest.NewServer(s)
	return s
}

func (s *site) close() { s.srv.Close() }

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.files[strings.TrimPrefix(r.URL.Path, "/")]
	s.requests++
	s.mu.Unlock()
	if !ok {
		data = nil
	}
	n := static.Serve(w, r, data)
	s.mu.Lock()
	s.bytes += int64(n)
	s.mu.Unlock()
}

func (s *site) take() (int64, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, b := s.requests, s.bytes
	s.requests, s.bytes = 0, 0
	return r, b
}

// relayLog is an honest relay: it lists each agent's checkpoint as soon
// as it changes (it polls every agent every heartbeat, at its own cost).
type relayLog struct {
	rel  relay.Relay
	skey string
	dir  string
	log  *relay.Log
	site *site
}

func makeRelays(n int, s *site) ([]*relayLog, error) {
	var out []*relayLog
	for i := range n {
		dir := fmt.Sprintf("relay%d", i)
		u := s.srv.URL + "/" + dir + "/"
		origin, _ := translog.Origin(u)
		skey, vkey, err := translog.GenerateKey(origin)
		if err != nil {
			return nil, err
		}
		out = append(out, &relayLog{rel: relay.Relay{URL: u, Key: vkey}, skey: skey, dir: dir, log: &relay.Log{}, site: s})
	}
	return out, nil
}

// runRelays runs every relay: the agents sign their new checkpoints
// once, then the relays, which share nothing, extend their logs at once.
func runRelays(rs []*relayLog, agents, changed []*agent) error {
	sign := changed
	if len(rs) > 0 && len(rs[0].log.Entries) == 0 {
		sign = agents // a new relay lists every agent
	}
	for _, a := range sign {
		if _, err := a.checkpoint(); err != nil {
			return err
		}
	}
	var g errgroup.Group
	for _, r := range rs {
		g.Go(func() error { return r.run(agents, changed) })
	}
	return g.Wait()
}

// run appends the agents that changed (all of them the first time).
func (r *relayLog) run(agents, changed []*agent) error {
	if len(r.log.Entries) == 0 {
		changed = agents
	}
	if len(changed) == 0 {
		return nil
	}
	add := make([]relay.Entry, 0, len(changed))
	for _, a := range changed {
		cp, err := a.checkpoint()
		if err != nil {
			return err
		}
		add = append(add, relay.Entry{Agent: a.url, Checkpoint: cp})
	}
	files, err := r.log.Extend(add, r.skey)
	if err != nil {
		return err
	}
	r.site.mu.Lock()
	for name, data := range files {
		r.site.files[r.dir+"/log/"+name] = data
	}
	r.site.mu.Unlock()
	return nil
}

// relayRead is what the relay mode reads each heartbeat.
type relayRead struct {
	relays     []*relayLog
	client     *fetch.Client
	site       *site
	directPoll time.Duration
}

// node is one mode's node: its cursors and pins.
type node struct {
	agents   []*agent
	st       *state.State
	pins     *logpin.Pins
	schedule state.Schedule
	held     []*relay.Held
	seenSize map[string]int64
	polled   map[string]time.Time // the last direct poll of each agent
	path     string               // where its cursors are saved
	saved    bool                 // whether a heartbeat saved them
	store    *relay.Store         // the relays' state, with relays
}

func newNode(agents []*agent, s state.Schedule, dir string) *node {
	pins, _ := logpin.Load(filepath.Join(dir, "log-pins.json"))
	return &node{agents: agents, st: state.New(), pins: pins, schedule: s, seenSize: map[string]int64{}, polled: map[string]time.Time{},
		path: filepath.Join(dir, "polling-cursors.json")}
}

// beat runs one heartbeat of the node at now: the relays read (rr nil:
// none), then each agent due polled. With persist, it loads the state
// the last heartbeat saved and saves it, as a run does; without, it keeps
// it in memory. Loading gives back what was saved except the poll times
// state.Save keeps as they were, which no schedule reads (Cursor.Due and
// View.Due count from the last news).
func (n *node) beat(now time.Time, rr *relayRead, persist bool) counts {
	var c counts
	cpu0 := cpuTime()
	if persist && n.saved {
		// Each heartbeat opens the state the last one saved, as a run does.
		st, err := state.Load(n.path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "relaysim: load:", err)
		} else {
			n.st = st
		}
	}
	var view *relay.View
	if rr != nil {
		if (persist && n.saved) || n.store == nil {
			store, err := relay.LoadStore(filepath.Join(filepath.Dir(n.path), "relays.json"))
			if err != nil {
				fmt.Fprintln(os.Stderr, "relaysim: relays' state:", err)
				return c
			}
			n.store = store
		}
		store := n.store
		n.held = n.held[:0]
		for _, r := range rr.relays {
			n.held = append(n.held, store.Held(r.rel))
		}
		rd := &relay.Reader{Client: rr.client, Pins: n.pins, Now: now}
		for i, r := range rr.relays {
			if _, err := rd.Read(context.Background(), r.rel, n.held[i]); err != nil {
				fmt.Fprintln(os.Stderr, "relaysim: relay read:", err)
			}
		}
		req, b := rr.site.take()
		c.requests += req
		c.bodyBytes += b
		view = relay.NewView(n.held, n.pins, func(u string) *state.Cursor { return n.st.Cursors[u] }, rr.directPoll, now)
	}
	for _, a := range n.agents {
		cur := n.st.Cursor(a.url)
		due := cur.Due(now)
		if view != nil {
			due = view.Due(a.url, cur, now)
		}
		if !due {
			continue
		}
		size, polled := n.seenSize[a.url], n.polled[a.url]
		n.poll(a, cur, now, &c)
		if size > 0 && a != n.agents[0] {
			n.validate(a, polled, now, &c)
		}
	}
	if rr != nil {
		relay.Settle(n.held, n.pins, now)
	}
	if persist {
		n.persist(now)
	}
	// The files hold the state only when this heartbeat saved it.
	n.saved = persist
	c.cpu = cpuTime() - cpu0
	c.filesWritten, c.bytesWritten = written.take()
	return c
}

// reload is the CPU time of a heartbeat's load and save of the node's
// state when nothing changed: what each measured heartbeat pays besides
// its polls, measured apart for -state-in-memory.
func (n *node) reload() time.Duration {
	cpu0 := cpuTime()
	st, err := state.Load(n.path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relaysim: load:", err)
		return 0
	}
	if n.store != nil {
		store, err := relay.LoadStore(filepath.Join(filepath.Dir(n.path), "relays.json"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "relaysim: relays' state:", err)
			return 0
		}
		if _, err := store.Save(); err != nil {
			fmt.Fprintln(os.Stderr, "relaysim: save relays' state:", err)
		}
	}
	if _, err := st.Save(n.path, time.Time{}); err != nil {
		fmt.Fprintln(os.Stderr, "relaysim: save:", err)
	}
	d := cpuTime() - cpu0
	if f, _ := written.take(); f != 0 {
		fmt.Fprintf(os.Stderr, "relaysim: a reload wrote %d files\n", f)
	}
	return d
}

// persist saves the node's state.
func (n *node) persist(now time.Time) {
	if n.store != nil {
		if _, err := n.store.Save(); err != nil {
			fmt.Fprintln(os.Stderr, "relaysim: save relays' state:", err)
		}
	}
	if err := n.save(now); err != nil {
		fmt.Fprintln(os.Stderr, "relaysim: save:", err)
	}
}

// save writes the cursors as the heartbeat does (state.Save: a file per
// peer, only those whose bytes changed, poll times alone once a day).
func (n *node) save(now time.Time) error {
	var timesBefore time.Time
	if now.Sub(now.Truncate(24*time.Hour)) < presence.Heartbeat {
		timesBefore = now.Add(-state.PollTimesEvery)
	}
	_, err := n.st.Save(n.path, timesBefore)
	return err
}

// writes counts the state files the node's code writes, as
// statefile.SetWriteHook tells them: the cursors' and relays' stores
// write only the files whose bytes changed.
type writes struct {
	mu           sync.Mutex
	files, bytes int64
}

var written writes

func (w *writes) add(_ string, size int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files++
	w.bytes += int64(size)
}

func (w *writes) take() (int64, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, b := w.files, w.bytes
	w.files, w.bytes = 0, 0
	return f, b
}

// poll is a modelled direct poll of a's log: the node accepts its
// checkpoint and pins it. News a relay listed is read under the relay's
// checkpoint, verified with the agent's key, so the poll asks the agent
// for the bundle and the trace alone (docs/decisions.md, "Relays"); the
// honest relays here list every agent at most a heartbeat late, and an
// agent publishes at most once a day, so the direct reads of the
// checkpoint that relays.direct_poll requires are the vouched polls.
func (n *node) poll(a *agent, cur *state.Cursor, now time.Time, c *counts) {
	cur.LastPolled = now
	news := int(a.size - n.seenSize[a.url])
	if n.seenSize[a.url] == 0 {
		news = 0 // first contact: the history, not news
	}
	relayed := false
	for _, h := range n.held {
		if l, ok := h.Agents[a.url]; ok && news > 0 && l.Size == a.size {
			relayed = true
		}
	}
	switch {
	case relayed:
		c.requests += 2
		c.bodyBytes += entryBytes*(a.size%256) + traceBytes
	case news > 0 || n.seenSize[a.url] == 0:
		c.requests += 3
		c.bodyBytes += checkpointBytes + entryBytes*(a.size%256) + traceBytes
	default:
		c.requests++
	}
	if news > 0 {
		for _, p := range a.publishes {
			if p.After(n.polled[a.url]) && !p.After(now) {
				c.delaySum += now.Sub(p)
				c.seen++
			}
		}
	}
	n.polled[a.url] = now
	n.seenSize[a.url] = a.size
	cur.RecordSuccess(now)
	cur.RecordActivity(now, news, n.schedule)
	r := a.root()
	n.pins.Put(&logpin.Pin{URL: a.url, Key: a.vkey, Accepted: []logpin.Tree{{Size: a.size, Root: base64.StdEncoding.EncodeToString(r[:])}}})
}

// validate counts the validations the node writes of a's traces that
// a poll at now read, a's last poll being at polled: one of each, or one
// of each whose jury names it.
func (n *node) validate(a *agent, polled, now time.Time, c *counts) {
	for i, p := range a.publishes {
		if p.After(polled) && !p.After(now) {
			c.validationsAll++
			if a.assigned[i] {
				c.validationsAssigned++
			}
		}
	}
}

// stateBytes is the size of the node's state files as saved: its
// cursors, and the relays'.
func (n *node) stateBytes() int64 {
	var total int64
	filepath.WalkDir(filepath.Dir(n.path), func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}
