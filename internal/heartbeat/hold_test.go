package heartbeat

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/slowtest"
)

// TestFetchesHoldOnlyWhatTheyRead: with limits.trace_bytes at 16 MiB, a
// fetch that reserved it (at most heldReserveCap) before asking let only
// maxHeldBytes / heldReserveCap = 8 fetches run at once, whatever the
// host allowed; a fetch now holds what it has read, so the host's 32
// connections all carry requests. The peer answers no trace until 16 are
// asked at once (or, failing, after a guard of 10 s), and counts the most
// in flight.
func TestFetchesHoldOnlyWhatTheyRead(t *testing.T) {
	const files, want = 40, 16
	p := newFakePeer(t)
	g := &gate{want: want, open: make(chan struct{})}
	m := manifest.Manifest{Agent: "many", Sequence: files}
	for seq := 1; seq <= files; seq++ {
		name := fmt.Sprintf("traces/%03d.md", seq)
		body := []byte(fmt.Sprintf("# Trace %d\n\n## Work\n\nA small trace, number %d.\n", seq, seq))
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(body), File: name, Type: "knowledge", Status: "pending"})
		p.handle("/m/"+name, func(w http.ResponseWriter, r *http.Request) {
			g.pass()
			w.Write(body)
		})
	}
	p.handle("/m/MANIFEST.md", staticManifest(m.Format()))
	dir := newNode(t, [][2]string{{"many", p.URL + "/m/"}},
		"gossip:\n  enabled: false\nlimits:\n  trace_bytes: 16777216\nheartbeat:\n  max_conns_per_host: 32\n")
	held, peak := beatWatched(t, dir, testNow, nil)
	if most := g.most(); most < want {
		t.Errorf("at most %d fetches in flight, want %d: the memory budget throttles the requests", most, want)
	}
	if held != 0 || peak > maxHeldBytes || peak >= heldReserveCap {
		t.Errorf("held %d bytes at the end and %d at most, want 0 and less than one reservation of %d", held, peak, heldReserveCap)
	}
	if n := len(loadLedger(t, dir).Traces); n != files {
		t.Errorf("ledger holds %d traces, want %d", n, files)
	}
}

// gate holds requests until want are in flight at once, then lets all
// through; it gives up waiting after a guard, so that a client that never
// sends that many fails the test rather than hangs it.
type gate struct {
	mu             sync.Mutex
	want, now, max int
	open           chan struct{}
	opened         bool
}

func (g *gate) pass() {
	g.mu.Lock()
	g.now++
	g.max = max(g.max, g.now)
	if g.now >= g.want && !g.opened {
		g.opened = true
		close(g.open)
	}
	g.mu.Unlock()
	select {
	case <-g.open:
	case <-time.After(10 * time.Second):
		g.mu.Lock()
		if !g.opened {
			g.opened = true
			close(g.open)
		}
		g.mu.Unlock()
	}
	g.mu.Lock()
	g.now--
	g.mu.Unlock()
}

func (g *gate) most() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}

// TestBodiesRefusedRoomAreFetchedAgain: 8 peers on their own hosts serve
// 1 MiB files over 16 connections each, 128 MiB in flight were each fetch
// to read its whole body: fetches past maxHeldBytes are refused room
// (requests_failed "held"), fetched again when their poll reaches them,
// and every file is read within the budget, which holds nothing when a
// heartbeat ends.
func TestBodiesRefusedRoomAreFetchedAgain(t *testing.T) {
	slowtest.Require(t)
	const peers, files, size = 8, 12, 1 << 20
	var list [][2]string
	for i := range peers {
		name := fmt.Sprint("large", i)
		list = append(list, [2]string{name, largePeer(t, name, "/l/", files, size).URL + "/l/"})
	}
	dir := newNode(t, list, "gossip:\n  enabled: false\nheartbeat:\n  deadline: 6h\n  request_timeout: 10m\n  max_conns_per_host: 16\n")
	refused := int64(0)
	for beats := range 4 {
		var sum *report.Summary
		held, peak := beatWatched(t, dir, testNow.Add(time.Duration(beats)*cursorStep), &sum)
		if peak > maxHeldBytes || held != 0 {
			t.Errorf("heartbeat %d held %d bytes at most and %d at its end, want at most %d and 0", beats+1, peak, held, maxHeldBytes)
		}
		if sum.PeersFailed != 0 {
			t.Errorf("heartbeat %d: %d peers failed", beats+1, sum.PeersFailed)
		}
		refused += sum.RequestsFailed[string(fetch.KindHeld)]
		if len(loadLedger(t, dir).Traces) == peers*files {
			break
		}
	}
	if n := len(loadLedger(t, dir).Traces); n != peers*files {
		t.Fatalf("ledger holds %d of %d files after 4 heartbeats", n, peers*files)
	}
	if refused == 0 {
		t.Error("no fetch was refused room: the test did not reach maxHeldBytes")
	}
}
