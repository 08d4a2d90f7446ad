package heartbeat

import (
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// asked returns the requests by path since it was last called, and clears
// them.
func (m *relayMesh) asked() map[string]int {
	m.srv.mu.Lock()
	defer m.srv.mu.Unlock()
	out := m.srv.paths
	m.srv.paths = map[string]int{}
	return out
}

// TestRelayedNewsCostsTheAgentOneRequestLess: news a relay listed is read
// under the relay's checkpoint, verified with the agent's pinned key, so
// the node asks the agent for the bundle and the trace but not for its
// checkpoint: one request less than a node reading the agent directly at
// the same heartbeat. A day later its direct poll asks for the agent's
// own checkpoint.
func TestRelayedNewsCostsTheAgentOneRequestLess(t *testing.T) {
	if testing.Short() {
		t.Skip("a day of heartbeats")
	}
	m := newRelayMesh(t)
	direct := newNode(t, [][2]string{{"agent", m.agentURL}}, "")
	t0 := testNow
	m.publish(t, t0.Add(-2*time.Hour))
	m.relayRun(t)
	m.beat(t, t0)
	beat(t, direct, t0)
	m.publish(t, t0.Add(time.Minute))
	m.relayRun(t)

	at := t0.Add(30 * time.Minute)
	m.asked()
	sum, relayed := m.beat(t, at)
	paths := m.asked()
	checkpoint := "/agent/" + node.LogDir + "/" + translog.CheckpointFile
	if sum.NewTraces != 1 || paths[checkpoint] != 0 {
		t.Fatalf("relayed news: %d new traces, agent asked %v", sum.NewTraces, paths)
	}
	if sum := beat(t, direct, at); sum.NewTraces != 1 {
		t.Fatalf("direct node: %d new traces", sum.NewTraces)
	}
	asked := m.asked()
	if n := m.srv.take("agent"); relayed != n-1 || asked[checkpoint] != 1 {
		t.Fatalf("news cost the agent %d requests through the relay %v, %d directly %v: want one less", relayed, paths, n, asked)
	}

	// The agent's own checkpoint is asked for at its direct poll, within
	// relays.direct_poll.
	seen := false
	for at = at.Add(30 * time.Minute); !at.After(t0.Add(25 * time.Hour)); at = at.Add(30 * time.Minute) {
		m.beat(t, at)
		seen = seen || m.asked()[checkpoint] > 0
	}
	if !seen {
		t.Fatal("the agent's own checkpoint was not read within a day of the relayed news")
	}
}
