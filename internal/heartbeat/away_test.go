package heartbeat

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// growingPeer is a peer whose MANIFEST.md gains traces between heartbeats.
type growingPeer struct {
	mu    sync.Mutex
	m     manifest.Manifest
	files map[string]string
}

func newGrowingPeer(t *testing.T) (*growingPeer, *httptest.Server) {
	p := &growingPeer{m: manifest.Manifest{Agent: "busy"}, files: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "MANIFEST.md" {
			w.Write(p.m.Format())
			return
		}
		if f, ok := p.files[name]; ok {
			fmt.Fprint(w, f)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv
}

// add publishes body as a trace submitted at at and returns its hash.
func (p *growingPeer) add(body string, at time.Time) manifest.Hash {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m.Sequence++
	name := fmt.Sprintf("traces/%03d.md", p.m.Sequence)
	p.files[name] = body
	h := manifest.HashBytes([]byte(body))
	p.m.Entries = append(p.m.Entries, manifest.Entry{Seq: p.m.Sequence, Hash: h, File: name, Type: "knowledge", Status: "pending", Submitted: at})
	return h
}

// noteWhose is the first note body from prefix whose jury among pool, the
// present members ranked before the away, names "tester" when want is true
// and does not when it is false.
func noteWhose(prefix string, present, away []string, want bool) (string, manifest.Hash) {
	for i := 0; ; i++ {
		body := fmt.Sprintf("# %s %d\n\n## Work\n\nDone, step %d.\n", prefix, i, i)
		h := manifest.HashBytes([]byte(body))
		seats := append(byWeight(h, present), byWeight(h, away)...)[:5]
		if slices.Contains(seats, "tester") == want {
			return body, h
		}
	}
}

// TestUnderMesh2026v5AnAwayNodeValidatesOneUnassignedTraceAndIsDrawnAgain:
// twelve founders; the node's only assignment, three days ago, failed (its
// scorer was down), so under mesh-2026-5 it is away today and every jury
// of today's traces is drawn from the seven founders never assigned. The
// node queues one unassigned trace (the newest submitted, ties by hash),
// says it is away, and publishes a validation of it, so tomorrow's juries
// draw it again. Under mesh-2026-4 nobody is away and the node queues
// only its assignment.
func TestUnderMesh2026v5AnAwayNodeValidatesOneUnassignedTraceAndIsDrawnAgain(t *testing.T) {
	const self = "http://127.0.0.1:1/tester/"
	pool := []string{"tester"}
	founders := "tester | " + self + "\n"
	for i := 1; i <= 11; i++ {
		pool = append(pool, fmt.Sprintf("f%d", i))
		founders += fmt.Sprintf("f%d | https://f%d.example/\n", i, i)
	}
	day0 := testNow.Add(-3 * 24 * time.Hour)
	const everyBeat = "polling:\n  quiet_after: 0\n" // a quiet peer is polled at once
	failing := everyBeat + "scorer: command\nscorer_command:\n  - false\n"
	for _, rules := range []string{"mesh-2026-4", "mesh-2026-5"} {
		t.Run(rules, func(t *testing.T) {
			peer, srv := newGrowingPeer(t)
			oldBody, oldHash := noteWhose("Old note", pool, nil, true)
			peer.add(oldBody, day0)
			away := juryOf(oldHash, pool)
			present := slices.DeleteFunc(slices.Clone(pool), func(n string) bool { return slices.Contains(away, n) })

			dir := newNode(t, [][2]string{{"busy", srv.URL + "/"}}, failing)
			write(t, dir, node.FoundersFile, "rules: "+rules+"\n"+founders)
			if sum := beat(t, dir, day0); sum.Queued != 1 || sum.ValidationsPublished != 0 {
				t.Fatalf("day 0: queued %d, published %d; want its one assignment queued and failed", sum.Queued, sum.ValidationsPublished)
			}

			// Today's traces: two at one time, none naming the node when
			// the away are passed over, and an older one.
			write(t, dir, "mesh.yaml", "agent: tester\nurl: "+self+"\nallow_private_addresses: true\n"+gossipOnLoopback(everyBeat))
			var today []manifest.Hash
			for i, at := range []time.Time{testNow.Add(-time.Hour), testNow.Add(-2 * time.Hour), testNow.Add(-time.Hour)} {
				body, h := noteWhose(fmt.Sprintf("Note %d", i), present, away, false)
				peer.add(body, at)
				today = append(today, h)
			}
			wantAssigned := 0
			if rules == "mesh-2026-4" {
				for _, h := range today {
					if slices.Contains(juryOf(h, pool), "tester") {
						wantAssigned++
					}
				}
			}
			sum := beat(t, dir, testNow)
			if rules == "mesh-2026-4" {
				if sum.Away || sum.Presence != "" || sum.Queued != wantAssigned || sum.Unassigned != len(today)-wantAssigned {
					t.Fatalf("away %v (%q), queued %d, unassigned %d; want nobody away and %d queued", sum.Away, sum.Presence, sum.Queued, sum.Unassigned, wantAssigned)
				}
				return
			}
			newest := min(today[0], today[2])
			if !sum.Away || sum.Presence != string(newest) || sum.Queued != 1 || sum.Unassigned != len(today)-1 {
				t.Fatalf("away %v, presence %q, queued %d, unassigned %d; want away, %s, 1 and %d", sum.Away, sum.Presence, sum.Queued, sum.Unassigned, newest, len(today)-1)
			}
			var text strings.Builder
			sum.WriteText(&text)
			if !strings.Contains(text.String(), "; away: juries pass over this node, 1 unassigned trace queued to be drawn again ("+string(newest)+")") {
				t.Fatalf("the summary does not say the node is away:\n%s", text.String())
			}
			if sum.ValidationsPublished != 1 {
				t.Fatalf("published %d validations, want 1", sum.ValidationsPublished)
			}
			items, err := queue.Open(filepath.Join(dir, node.QueueFile)).List()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(items, func(it queue.Item) bool { return it.Hash == newest && it.Status == queue.StatusDone }) {
				t.Fatalf("queue %+v: want %s done", items, newest)
			}

			// Tomorrow the node is present: it is drawn, among the present
			// first, for a trace whose jury names it.
			others := slices.DeleteFunc(slices.Clone(away), func(n string) bool { return n == "tester" })
			back := append(slices.Clone(present), "tester")
			body, h := noteWhose("Next note", back, others, true)
			peer.add(body, testNow.Add(24*time.Hour))
			sum = beat(t, dir, testNow.Add(25*time.Hour))
			if sum.Away || sum.Presence != "" || sum.Queued != 1 || sum.Unassigned != 0 || sum.ValidationsPublished != 1 {
				t.Fatalf("next day: away %v, queued %d, unassigned %d, published %d; want its assignment %s queued and validated", sum.Away, sum.Queued, sum.Unassigned, sum.ValidationsPublished, h)
			}
		})
	}
}
