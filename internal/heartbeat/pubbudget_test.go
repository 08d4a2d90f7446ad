package heartbeat

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/signal"
)

// testPubLimits shrink what peers can make us publish so that a few dozen
// traces cross every bound: 4 of a peer's a heartbeat, 10 a day, 10 of
// all peers' a heartbeat, 20 of a peer's waiting, 50 in all.
var testPubLimits = pubLimits{perPeer: 4, perPeerDay: 10, perHeartbeat: 10, queuedPerPeer: 20, queued: 50}

func beatLimited(t *testing.T, dir string, now time.Time, l *pubLimits) *report.Summary {
	t.Helper()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), pubLimits: l})
	if err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	return sum
}

// floodPeers serves n peers with traces tiny traces each.
func floodPeers(t *testing.T, n, traces int) [][2]string {
	t.Helper()
	p := newFakePeer(t)
	var peers [][2]string
	for i := range n {
		base := fmt.Sprintf("/f%d/", i)
		var names []string
		files := map[string]string{}
		for j := range traces {
			name := fmt.Sprintf("traces/%04d.md", j)
			names = append(names, name)
			files[name] = fmt.Sprintf("# Tiny %d of %d\n\n## Work\n\nx %d %d\n", j, i, i, j)
		}
		p.publish(base, names, files)
		peers = append(peers, [2]string{fmt.Sprintf("f%d", i), p.URL + base})
	}
	return peers
}

// TestFloodingPeersGetABoundedShareOfWhatWePublish is issue 18's attack
// in small: peers with many tiny traces each once had a founder publish a
// validation of every one at once (bb3f4e4: 20,000 then 26,000 in two
// heartbeats, a MANIFEST.md of 4.3 MB that peers refused and the site
// could not build). Now each peer gets at most its share a heartbeat and
// a day, the queue holds at most its share of each, and the summary says
// what was held back and why.
func TestFloodingPeersGetABoundedShareOfWhatWePublish(t *testing.T) {
	t.Parallel()
	const peers, traces = 3, 30
	dir := newNode(t, floodPeers(t, peers, traces), "gossip:\n  enabled: false\n")
	write(t, dir, signal.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	l := testPubLimits

	sum := beatLimited(t, dir, testNow, &l)
	if sum.ValidationsPublished != l.perHeartbeat {
		t.Errorf("first heartbeat published %d validations, want %d", sum.ValidationsPublished, l.perHeartbeat)
	}
	// 20 of each of the first two peers, 10 of the third: 50 in all.
	if sum.Queued != l.queued {
		t.Errorf("%d traces queued, want %d", sum.Queued, l.queued)
	}
	reasons := map[string]int{}
	for _, h := range sum.HeldBack {
		reasons[h.Reason[:strings.Index(h.Reason, ":")]] += h.Count
	}
	if reasons["traces not queued for validation"] != peers*traces-l.queued ||
		reasons["validations held back"] != l.queued-l.perHeartbeat {
		t.Errorf("held back %+v", sum.HeldBack)
	}
	perPeer := validationsByPeer(t, dir)
	for url, n := range perPeer {
		if n > l.perPeer {
			t.Errorf("%s: %d validations in one heartbeat, want at most %d", url, n, l.perPeer)
		}
	}

	// A day of heartbeats: each peer gets at most its daily share, and
	// the next day the queue goes on draining.
	now := testNow
	for range 10 {
		now = now.Add(cursorStep)
		beatLimited(t, dir, now, &l)
	}
	for url, n := range validationsByPeer(t, dir) {
		if n != l.perPeerDay {
			t.Errorf("%s: %d validations in a day, want its daily share %d", url, n, l.perPeerDay)
		}
	}
	// Two days on, the first two peers' 10 traces left each are taken at
	// their share a heartbeat; the third peer has none left.
	sum = beatLimited(t, dir, testNow.Add(2*day), &l)
	if sum.ValidationsPublished != 2*l.perPeer {
		t.Errorf("two days on %d were published, want %d", sum.ValidationsPublished, 2*l.perPeer)
	}
}

// validationsByPeer counts our validation files by the peer whose trace
// they judge.
func validationsByPeer(t *testing.T, dir string) map[string]int {
	t.Helper()
	out := map[string]int{}
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	items, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, it := range items {
		byID[it.ID] = it.FromURL
	}
	for name := range validationFiles(t, dir) {
		id := strings.TrimSuffix(strings.TrimPrefix(name, "val-"), ".md")
		out[byID[id]]++
	}
	return out
}
