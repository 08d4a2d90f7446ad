package heartbeat

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/translog"
)

// relayServer serves directories by path prefix, files whole and without
// validators, and counts the requests under each prefix.
type relayServer struct {
	mu       sync.Mutex
	dirs     map[string]string // prefix ("agent") → directory
	requests map[string]int
	paths    map[string]int // requests by path (relayMesh.asked)
}

func (s *relayServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	top, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	s.mu.Lock()
	s.requests[top]++
	s.paths[r.URL.Path]++
	dir, ok := s.dirs[top]
	s.mu.Unlock()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rest)))
	if !ok || err != nil || strings.Contains(rest, "..") {
		http.NotFound(w, r)
		return
	}
	w.Write(data)
}

func (s *relayServer) take(top string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.requests[top]
	s.requests[top] = 0
	return n
}

// relayMesh is an agent with a signed log, a relay of it, and a node
// that reads the agent through the relay, on one loopback server.
type relayMesh struct {
	srv                    *relayServer
	agentDir, agentKey     string
	relayDir, relayKey     string
	nodeDir, agentURL, url string
	traces                 int
}

func newRelayMesh(t *testing.T) *relayMesh {
	m := &relayMesh{srv: &relayServer{dirs: map[string]string{}, requests: map[string]int{}, paths: map[string]int{}}}
	hs := httptest.NewServer(m.srv)
	t.Cleanup(hs.Close)
	m.agentURL, m.url = hs.URL+"/agent/", hs.URL+"/relay/"
	m.agentDir, m.relayDir = t.TempDir(), t.TempDir()
	m.srv.dirs["agent"], m.srv.dirs["relay"] = m.agentDir, m.relayDir
	m.agentKey = keyFor(t, m.agentURL)
	write(t, m.agentDir, "mesh.yaml", "agent: agent\nurl: "+m.agentURL+"\nallow_private_addresses: true\ngossip:\n  enabled: false\n")
	write(t, m.agentDir, "AGENTS.md", "# name | trace_url | joined\n")
	vkey, _ := translog.VerifierKey(m.agentKey)
	write(t, m.agentDir, "IDENTITY.md", "# IDENTITY\n\nname: agent\n"+translog.IdentityKey+": "+vkey+"\n")
	m.relayKey = keyFor(t, m.url)
	rv, _ := translog.VerifierKey(m.relayKey)
	m.nodeDir = newNode(t, [][2]string{{"agent", m.agentURL}}, "relays:\n  list:\n    - "+m.url+" "+rv+"\n")
	return m
}

func keyFor(t *testing.T, u string) string {
	origin, err := translog.Origin(u)
	if err != nil {
		t.Fatal(err)
	}
	skey, _, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	return skey
}

// publish adds a trace to the agent and runs its heartbeat at now.
func (m *relayMesh) publish(t *testing.T, now time.Time) {
	m.traces++
	name := "traces/t" + string(rune('a'+m.traces)) + ".md"
	write(t, m.agentDir, name, "---\ntitle: Trace "+name+"\n---\n\n# Trace\n\nSome work.\n")
	if _, err := beatKeyed(t, m.agentDir, m.agentKey, now, 0); err != nil {
		t.Fatal(err)
	}
}

// relayRun runs the relay once.
func (m *relayMesh) relayRun(t *testing.T) {
	client := fetch.New(fetch.Options{UserAgent: "relay-test", AllowPrivate: true, Timeout: 10 * time.Second})
	_, err := relay.Publish(context.Background(), relay.PublishOptions{Dir: m.relayDir, Key: m.relayKey,
		Agents: []string{m.agentURL}, Client: client, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
}

// beat runs the node's heartbeat at now and returns its summary and the
// requests it made of the agent.
func (m *relayMesh) beat(t *testing.T, now time.Time) (*report.Summary, int) {
	m.srv.take("agent")
	sum := beat(t, m.nodeDir, now)
	return sum, m.srv.take("agent")
}

func TestRelayLetsAQuietAgentWaitAndBringsItsNewsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("a day and a half of heartbeats")
	}
	m := newRelayMesh(t)
	t0 := testNow
	m.publish(t, t0.Add(-2*time.Hour))
	m.relayRun(t)
	if sum, n := m.beat(t, t0); sum.NewTraces != 1 || n == 0 {
		t.Fatalf("first contact: %d new traces, %d requests to the agent", sum.NewTraces, n)
	}
	// For a day and a half its schedule polls the quiet agent every few
	// heartbeats; the relay lists the checkpoint the node holds, so it is
	// polled once a day (relays.direct_poll) and no more, though a poll
	// that finds nothing leaves its last_polled unwritten.
	requests, skipped, polled := 0, 0, 0
	for at := t0.Add(30 * time.Minute); !at.After(t0.Add(36 * time.Hour)); at = at.Add(30 * time.Minute) {
		sum, n := m.beat(t, at)
		requests, skipped = requests+n, skipped+sum.RelaySkipped
		if n > 0 {
			polled++
		}
		if len(sum.Relays) != 1 || sum.Relays[0].State != relay.StateOK {
			t.Fatalf("relays %+v", sum.Relays)
		}
	}
	if polled > 2 || skipped == 0 {
		t.Fatalf("quiet agent vouched for by the relay: polled in %d heartbeats of 36 hours (%d requests), %d polls skipped", polled, requests, skipped)
	}
	m.publish(t, t0.Add(36*time.Hour+time.Minute))
	m.relayRun(t)
	if sum, n := m.beat(t, t0.Add(36*time.Hour+30*time.Minute)); sum.NewTraces != 1 || n == 0 {
		t.Fatalf("news on the relay: %d new traces, %d requests to the agent", sum.NewTraces, n)
	}
}

func TestRelayThatWithholdsAnAgentDelaysItAtMostTheDirectPollBound(t *testing.T) {
	if testing.Short() {
		t.Skip("a day of heartbeats")
	}
	m := newRelayMesh(t)
	t0 := testNow
	m.publish(t, t0.Add(-2*time.Hour))
	m.relayRun(t)
	m.beat(t, t0)
	published := t0.Add(time.Minute)
	m.publish(t, published) // the relay never lists it
	bound := relay.DefaultDirectPoll
	var arrived time.Time
	polls := 0
	at := t0.Add(30 * time.Minute)
	for ; !at.After(published.Add(bound)); at = at.Add(30 * time.Minute) {
		sum, n := m.beat(t, at)
		if n > 0 {
			polls++
		}
		if sum.NewTraces > 0 {
			arrived = at
			break
		}
	}
	if arrived.IsZero() {
		t.Fatalf("the withheld trace did not arrive within the direct-poll bound %v", bound)
	}
	if polls != 1 {
		t.Fatalf("the agent was polled %d times before its withheld trace arrived at %v, want once", polls, arrived)
	}
	// A day later, the relay still lists the old checkpoint: it lags.
	later, _ := m.beat(t, published.Add(bound+2*time.Hour))
	if later.Relays[0].State != relay.StateLagging {
		t.Fatalf("a relay that still lists the old checkpoint a day after the agent published: %+v", later.Relays[0])
	}
}
