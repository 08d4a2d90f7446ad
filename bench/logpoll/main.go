// Command logpoll measures what a heartbeat fetches from peers that each
// published one new entry on top of -rows, read through their signed logs
// (internal/logsource) and, side by side in the same run, read from their
// MANIFEST.md alone, as peers without a log are. Rounds alternate, each on
// a fresh copy of the node's state as of the previous heartbeat.
//
//	go run ./bench/logpoll -peers 1000 -rows 10000 -rounds 3
//
// It prints, per way of reading, min / median / max over the rounds of the
// requests and bytes its peers served: the new files alone, everything
// besides them (checkpoint, tiles, IDENTITY.md, MANIFEST.md, robots.txt),
// and the heartbeat's wall time, then what each class of file cost
// (the peers' AGENTS.md, read for gossip, and robots.txt, once a host,
// are the same either way; the node looked at the IDENTITY.md of a peer
// without a log in the heartbeat before, and looks again a day later, so
// here it asks none). Peers are served on -hosts loopback servers.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/bench/internal/static"
	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/translog"
)

var now = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

func main() {
	peers := flag.Int("peers", 1000, "peers, each with -rows rows and one new entry")
	rows := flag.Int("rows", 10000, "rows each peer published before")
	rounds := flag.Int("rounds", 3, "rounds, each reading every peer both ways")
	hosts := flag.Int("hosts", 10, "loopback servers the peers are spread over")
	flag.Parse()
	m, err := newMesh(*peers, *rows, *hosts)
	if err != nil {
		log.Fatal(err)
	}
	defer m.close()
	results := map[string][]counts{}
	for r := 0; r < *rounds; r++ {
		for _, way := range []string{"log", "manifest"} {
			c, err := m.round(way)
			if err != nil {
				log.Fatalf("%s round %d: %v", way, r, err)
			}
			results[way] = append(results[way], c)
		}
	}
	fmt.Printf("%d peers x %d rows + 1 new entry, %d rounds (min / median / max)\n", *peers, *rows, *rounds)
	for _, way := range []string{"log", "manifest"} {
		c := results[way][0]
		var classes []string
		for class, t := range c.byClass {
			classes = append(classes, fmt.Sprintf("%s %d requests %d bytes", class, t.requests, t.bytes))
		}
		sort.Strings(classes)
		fmt.Printf("%-8s served (round 1): %s\n", way, strings.Join(classes, "; "))
	}
	log, man := results["log"][0], results["manifest"][0]
	fmt.Printf("per peer, besides the files: log %.1f requests, %.0f bytes; manifest %.1f requests, %.0f bytes; %.0fx fewer bytes through the log\n",
		float64(log.requests-log.fileRequests)/float64(*peers), float64(log.bytes-log.fileBytes)/float64(*peers),
		float64(man.requests-man.fileRequests)/float64(*peers), float64(man.bytes-man.fileBytes)/float64(*peers),
		float64(man.bytes-man.fileBytes)/float64(log.bytes-log.fileBytes))
	for _, way := range []string{"log", "manifest"} {
		cs := results[way]
		fmt.Printf("%-8s requests besides the files %s, bytes besides the files %s, file requests %s, file bytes %s, wall %s s\n", way,
			stat(cs, func(c counts) float64 { return float64(c.requests - c.fileRequests) }),
			stat(cs, func(c counts) float64 { return float64(c.bytes - c.fileBytes) }),
			stat(cs, func(c counts) float64 { return float64(c.fileRequests) }),
			stat(cs, func(c counts) float64 { return float64(c.fileBytes) }),
			stat(cs, func(c counts) float64 { return c.wall.Seconds() }))
	}
}

// tally is the requests and bytes of one class of file.
type tally struct{ requests, bytes int64 }

// counts are what one heartbeat's peers served it.
type counts struct {
	requests, bytes, fileRequests, fileBytes int64
	wall                                     time.Duration
	byClass                                  map[string]tally
}

// classOf names what a path of a peer is, for the tallies.
func (m *mesh) classOf(path string) string {
	switch {
	case path == m.fileName:
		return "file"
	case path == node.ManifestFile, path == node.IdentityFile, path == node.AgentsFile:
		return strings.ToLower(strings.TrimSuffix(path, ".md"))
	case strings.HasPrefix(path, node.LogDir+"/"):
		return "log"
	}
	return path
}

func stat(cs []counts, f func(counts) float64) string {
	v := make([]float64, len(cs))
	for i, c := range cs {
		v[i] = f(c)
	}
	sort.Float64s(v)
	return fmt.Sprintf("%.6g / %.6g / %.6g", v[0], v[len(v)/2], v[len(v)-1])
}

// mesh is the peers, served at their state after the new entry, and the
// two node directories as they were before it.
type mesh struct {
	srvs     []*httptest.Server
	peers    []*peer
	tiles    map[string][]byte // the grown log's tiles, the same for every peer
	manifest []byte            // MANIFEST.md with the new row
	file     []byte            // the new entry's file
	fileName string
	withLog  atomic.Bool // peers serve a log (else MANIFEST.md only)
	mu       sync.Mutex
	served   map[string]*tally // by class of file: log, manifest, identity, agents, robots, file
	dir      string
	before   map[string][]byte // pins before the new entry, by file name
	rows     int
}

type peer struct {
	name, url  string
	identity   []byte
	checkpoint []byte // the grown log's, signed with the peer's key
	pin        logpin.Pin
}

func newMesh(n, rows, hosts int) (*mesh, error) {
	m := &mesh{rows: rows, dir: must(os.MkdirTemp("", "logpoll"))}
	entries := make([]translog.Entry, rows+1)
	var mf manifest.Manifest
	for i := range entries {
		body := fmt.Appendf(nil, "# trace %d\n\nA trace of the benchmark, entry %d of its log.\n", i+1, i+1)
		entries[i] = translog.Entry{Seq: manifest.Seq(i + 1), Hash: manifest.HashBytes(body), File: fmt.Sprintf("traces/t-%06d.md", i+1),
			Type: "knowledge", Submitted: now.Add(-time.Duration(rows-i) * time.Hour)}
		mf.Entries = append(mf.Entries, manifest.Entry{Seq: entries[i].Seq, Hash: entries[i].Hash, File: entries[i].File, Type: "knowledge", Status: manifest.StatusPending, Submitted: entries[i].Submitted})
		if i == rows {
			m.file, m.fileName = body, entries[i].File
		}
	}
	mf.Agent, mf.Updated, mf.Sequence = "peer", now, manifest.Seq(rows+1)
	m.manifest = mf.Format()
	skey, _, err := translog.GenerateKey("bench.example")
	if err != nil {
		return nil, err
	}
	before, err := translog.Update(nil, entries[:rows], skey)
	if err != nil {
		return nil, err
	}
	if m.tiles, err = translog.Update(nil, entries, skey); err != nil {
		return nil, err
	}
	for i := 0; i < hosts; i++ {
		m.srvs = append(m.srvs, httptest.NewServer(http.HandlerFunc(m.serve)))
	}
	for i := 0; i < n; i++ {
		p := &peer{name: fmt.Sprintf("p%04d", i)}
		p.url = fmt.Sprintf("%s/%s/", m.srvs[i%hosts].URL, p.name)
		if err := p.sign(before, m.tiles); err != nil {
			return nil, err
		}
		p.pin.LastSeq = manifest.Seq(rows)
		m.peers = append(m.peers, p)
	}
	return m, m.writeNode()
}

// sign makes the peer's key, its IDENTITY.md, its checkpoints before and
// after the new entry, and the pin a node holds of it before.
func (p *peer) sign(before, after map[string][]byte) error {
	origin, err := translog.Origin(p.url)
	if err != nil {
		return err
	}
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		return err
	}
	p.identity = []byte("# IDENTITY\n\nname: " + p.name + "\n" + translog.IdentityKey + ": " + vkey + "\n")
	resign := func(files map[string][]byte) ([]byte, translog.Checkpoint, error) {
		cp, err := translog.ParseCheckpoint(checkpointText(files[translog.CheckpointFile]))
		if err != nil {
			return nil, cp, err
		}
		cp.Origin = origin
		b, err := translog.Sign(cp, skey)
		return b, cp, err
	}
	old, cp, err := resign(before)
	if err != nil {
		return err
	}
	if p.checkpoint, _, err = resign(after); err != nil {
		return err
	}
	p.pin = logpin.Pin{URL: p.url, Key: vkey, Checkpoint: string(old),
		Accepted: []logpin.Tree{{Size: cp.Size, Root: rootText(cp)}}, Tiles: keptTiles(before, cp.Size)}
	return nil
}

// keptTiles are the hash tiles a node keeps of a tree of size n after
// reading it (logpin.Pin.Tiles): the rightmost of each level from 1.
func keptTiles(files map[string][]byte, n int64) map[string]string {
	top := map[int]tlog.Tile{}
	for _, t := range tlog.NewTiles(translog.TileHeight, 0, n) {
		if cur, ok := top[t.L]; t.L > 0 && (!ok || t.N > cur.N) {
			top[t.L] = t
		}
	}
	out := map[string]string{}
	for _, t := range top {
		path := translog.TilePath(t)
		out[path] = base64.StdEncoding.EncodeToString(files[path])
	}
	return out
}

func checkpointText(signed []byte) string {
	text, _, _ := strings.Cut(string(signed), "\n\n")
	return text + "\n"
}

func rootText(cp translog.Checkpoint) string {
	lines := strings.Split(string(cp.Marshal()), "\n")
	return lines[2]
}

// serve answers a peer's files, with ETags, counting what it sends.
func (m *mesh) serve(w http.ResponseWriter, r *http.Request) {
	name, path, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	var body []byte
	var p *peer
	for _, q := range m.peers {
		if q.name == name {
			p = q
		}
	}
	switch {
	case p == nil:
	case path == node.ManifestFile:
		body = m.manifest
	case path == m.fileName:
		body = m.file
	case !m.withLog.Load():
	case path == node.IdentityFile:
		body = p.identity
	case path == node.LogDir+"/"+translog.CheckpointFile:
		body = p.checkpoint
	case strings.HasPrefix(path, node.LogDir+"/"):
		body = m.tiles[strings.TrimPrefix(path, node.LogDir+"/")]
	}
	if p == nil {
		path = "robots" // robots.txt, at the host's root
	}
	t := m.tally(m.classOf(path))
	t.requests++
	n := static.Serve(w, r, body)
	m.mu.Lock()
	t.bytes += int64(n)
	m.mu.Unlock()
}

// tally returns the counters of a class, counting one request under mu.
func (m *mesh) tally(class string) *tally {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.served[class]
	if !ok {
		t = &tally{}
		m.served[class] = t
	}
	return t
}

// writeNode writes the node that reads the peers, as of the heartbeat
// before the new entry: cursors at -rows, and (for the log round) pins.
func (m *mesh) writeNode() error {
	// The deadline is the workflow's interval: on a loaded machine,
	// re-reading 1,000 manifests of 1.6 MB outlasts the default 10 minutes.
	cfg := "agent: bench\nurl: https://bench.example/\nallow_private_addresses: true\nheartbeat:\n  deadline: 30m\n"
	var agents strings.Builder
	agents.WriteString("# name | trace_url | joined\n")
	st := state.New()
	pins := map[string][]byte{}
	for _, p := range m.peers {
		fmt.Fprintf(&agents, "%s | %s | 2026-02-01\n", p.name, p.url)
		c := st.Cursor(p.url)
		c.Agent, c.LastSeenSeq = p.name, manifest.Seq(m.rows)
		c.RecordSuccess(now.Add(-30 * time.Minute))
		c.LogProbed = now.Add(-30 * time.Minute) // that heartbeat looked for a log
		data, err := json.MarshalIndent(p.pin, "", "  ")
		if err != nil {
			return err
		}
		pins[statefile.PeerFileName(p.url)] = append(data, '\n')
	}
	for name, text := range map[string]string{node.ConfigFile: cfg, node.AgentsFile: agents.String(), node.ManifestFile: "# MANIFEST\n\nagent: bench\nurl: https://bench.example/\nsequence: 0\n"} {
		if err := os.WriteFile(filepath.Join(m.dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if _, err := st.Save(filepath.Join(m.dir, node.CursorsFile), time.Time{}); err != nil {
		return err
	}
	m.before = pins
	return nil
}

// round runs one heartbeat on a fresh copy of the node, the peers
// serving their logs (way "log", the node holding their pins) or
// MANIFEST.md alone.
func (m *mesh) round(way string) (counts, error) {
	dir := must(os.MkdirTemp("", "logpoll-node"))
	defer os.RemoveAll(dir)
	if err := os.CopyFS(dir, os.DirFS(m.dir)); err != nil {
		return counts{}, err
	}
	m.withLog.Store(way == "log")
	if way == "log" {
		if _, err := statefile.Write(filepath.Join(dir, node.LogPinsFile), m.before); err != nil {
			return counts{}, err
		}
	}
	cfg, err := config.Load(dir)
	if err != nil {
		return counts{}, err
	}
	m.mu.Lock()
	m.served = map[string]*tally{}
	m.mu.Unlock()
	start := time.Now()
	sum, err := heartbeat.Run(context.Background(), heartbeat.Options{Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return counts{}, err
	}
	c := counts{wall: time.Since(start), byClass: map[string]tally{}}
	m.mu.Lock()
	for class, t := range m.served {
		c.byClass[class] = *t
		c.requests += t.requests
		c.bytes += t.bytes
	}
	m.mu.Unlock()
	c.fileRequests, c.fileBytes = c.byClass["file"].requests, c.byClass["file"].bytes
	if sum.NewTraces != len(m.peers) || len(sum.LogsRefused) > 0 || len(sum.Failures) > 0 {
		return c, fmt.Errorf("%d new traces of %d peers, %d logs refused, failures %v", sum.NewTraces, len(m.peers), len(sum.LogsRefused), sum.Failures)
	}
	return c, nil
}

func (m *mesh) close() {
	for _, s := range m.srvs {
		s.Close()
	}
	os.RemoveAll(m.dir)
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
