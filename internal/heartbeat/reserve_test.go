package heartbeat

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// meshServer serves several agents, each under /<name>/: a MANIFEST.md
// and its files.
type meshServer struct {
	mu     sync.Mutex
	agents map[string]*manifest.Manifest
	files  map[string]string // "<name>/<file>" → body
}

// newFoundersMesh serves ada and eleven founders f1 to f11 besides the
// node, "tester", all founders under rules: the pool of validators, the
// peers to follow and the FOUNDERS.md that names them.
func newFoundersMesh(t *testing.T, rules string) (ms *meshServer, srv *httptest.Server, pool []string, peers [][2]string, founders string) {
	t.Helper()
	ms, srv = newMeshServer(t)
	pool = []string{"tester"}
	peers = [][2]string{{"ada", srv.URL + "/ada/"}}
	founders = "rules: " + rules + "\ntester | http://127.0.0.1:1/tester/\n"
	for i := 1; i <= 11; i++ {
		n := fmt.Sprintf("f%d", i)
		pool = append(pool, n)
		peers = append(peers, [2]string{n, srv.URL + "/" + n + "/"})
		founders += fmt.Sprintf("%s | %s/%s/\n", n, srv.URL, n)
		ms.agents[n] = &manifest.Manifest{Agent: n}
	}
	return ms, srv, pool, peers, founders
}

func newMeshServer(t *testing.T) (*meshServer, *httptest.Server) {
	m := &meshServer{agents: map[string]*manifest.Manifest{}, files: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		defer m.mu.Unlock()
		name, file, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if a, ok := m.agents[name]; ok && file == "MANIFEST.md" {
			w.Write(a.Format())
			return
		}
		if f, ok := m.files[name+"/"+file]; ok {
			fmt.Fprint(w, f)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return m, srv
}

// publish lists body as agent's file, of type typ, dated at.
func (m *meshServer) publish(agent, file, typ, body string, at time.Time) manifest.Hash {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.agents[agent]
	if a == nil {
		a = &manifest.Manifest{Agent: agent}
		m.agents[agent] = a
	}
	a.Sequence++
	h := manifest.HashBytes([]byte(body))
	a.Entries = append(a.Entries, manifest.Entry{Seq: a.Sequence, Hash: h, File: file, Type: typ, Status: "pending", Submitted: at})
	m.files[agent+"/"+file] = body
	return h
}

// TestTheReserveStepsInOnlyForATraceShortOfVotesOnceDue: twelve founders
// under mesh-2026-6, eleven of them peers; ada's trace names the node in
// its reserve. With fewer than three of its jurors' passes, or with three
// and another reserve member's, the node queues it at the first heartbeat
// 24 hours after it first saw the trace (later than its submitted time),
// not before: not at the end of the trace's UTC day either, when its
// jury may not have read it yet; with three of the
// jury's alone it never does; and under mesh-2026-5 never. One its
// scorer cannot score is queued once, not again at every heartbeat.
func TestTheReserveStepsInOnlyForATraceShortOfVotesOnceDue(t *testing.T) {
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		rules string
		votes int  // by the first ranks of the order
		other bool // and by the other reserve member of highest rank
		want  int
		fails bool // the node's scorer fails
	}{
		{"two of the jury voted", "mesh-2026-6", 2, false, 1, false},
		{"none voted", "mesh-2026-6", 0, false, 1, false},
		{"three voted", "mesh-2026-6", 3, false, 0, false},
		{"three voted, and a reserve member", "mesh-2026-6", 3, true, 1, false},
		{"no reserve under mesh-2026-5", "mesh-2026-5", 0, false, 0, false},
		{"the scorer fails", "mesh-2026-6", 0, false, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, srv, pool, peers, founders := newFoundersMesh(t, tc.rules)
			var body string
			var h manifest.Hash
			for i := 0; ; i++ {
				body = fmt.Sprintf("# Ada's note %d\n\n## Work\n\nDone, step %d.\n", i, i)
				h = manifest.HashBytes([]byte(body))
				if r := slices.Index(byWeight(h, pool), "tester"); r >= 5 && r < 10 {
					break
				}
			}
			ms.publish("ada", "traces/001.md", "knowledge", body, day.Add(10*time.Hour))
			voters := byWeight(h, pool)[:tc.votes]
			if tc.other {
				voters = append(voters, slices.DeleteFunc(byWeight(h, pool)[5:10], func(n string) bool { return n == "tester" })[0])
			}
			for _, n := range voters {
				ms.publish(n, "validations/val-ada.md", "validation", fmt.Sprintf(
					"# VALIDATION\n\nvalidator: %s\nvalidator_url: %s/%s/\ntrace_url: %s/ada/traces/001.md\ntrace_hash: %s\nvalidated_at: 2026-03-14T12:00:00Z\nresult: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
					n, srv.URL, n, srv.URL, h), day.Add(12*time.Hour))
			}
			extra := "polling:\n  quiet_after: 0\n"
			if tc.fails {
				extra += "scorer: command\nscorer_command:\n  - false\n"
			}
			dir := newNode(t, peers, extra)
			write(t, dir, node.FoundersFile, founders)
			for _, at := range []time.Duration{13 * time.Hour, 24*time.Hour + 30*time.Minute, 36*time.Hour + 59*time.Minute} {
				if sum := beat(t, dir, day.Add(at)); sum.Reserve != 0 || sum.Queued != 0 {
					t.Fatalf("at %v: reserve %d, queued %d; want nothing before it is due", at, sum.Reserve, sum.Queued)
				}
			}
			sum := beat(t, dir, day.Add(37*time.Hour+30*time.Minute))
			published := tc.want
			if tc.fails {
				published = 0
			}
			if sum.Reserve != tc.want || sum.Queued != tc.want || sum.ValidationsPublished != published {
				t.Fatalf("due: reserve %d, queued %d, published %d; want %d, %d, %d", sum.Reserve, sum.Queued, sum.ValidationsPublished, tc.want, tc.want, published)
			}
			if sum := beat(t, dir, day.Add(38*time.Hour)); sum.Reserve != 0 || sum.Queued != 0 {
				t.Fatalf("the next heartbeat stepped in again: reserve %d, queued %d", sum.Reserve, sum.Queued)
			}
		})
	}
}
