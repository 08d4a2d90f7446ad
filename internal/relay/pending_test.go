package relay

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestAPendingCheckpointOfAnAgentNeverPinnedIsDroppedAfterABound: a relay
// listed an agent the node polls but has not pinned, and the node held
// its checkpoint pending for a first contact that never came: it stayed
// pending for ever, in the agent's file, deciding nothing. It stays
// pending PendingUnpinned after the node first read it, across saves, and
// is then dropped with the agent's file; the pinned agent's listing is
// left as it is, and a heartbeat before the bound writes nothing.
func TestAPendingCheckpointOfAnAgentNeverPinnedIsDroppedAfterABound(t *testing.T) {
	m := newMesh(t, 1, 1)
	unpinned := newAgent(t, "https://unpinned.example/mesh/")
	m.relays[0].add(t, unpinned.entry(t))
	path := filepath.Join(t.TempDir(), "relays.json")
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	rel := m.relays[0].rel
	if _, err := m.rd.Read(context.Background(), rel, s.Held(rel)); err != nil {
		t.Fatal(err)
	}
	Settle(s.All(), m.rd.Pins, t0)
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
	settleSaved := func(at int) (*Held, bool) {
		t.Helper()
		s, err := LoadStore(path)
		if err != nil {
			t.Fatal(err)
		}
		Settle(s.All(), m.rd.Pins, t0.Add(PendingUnpinned*time.Duration(at)/2))
		changed, err := s.Save()
		if err != nil {
			t.Fatal(err)
		}
		return s.Held(rel), changed
	}
	h, changed := settleSaved(1) // half the bound on
	if h.Pending[unpinned.url] == "" || changed {
		t.Fatalf("half the bound on: pending %v, files changed %v; want it pending, nothing written", h.Pending, changed)
	}
	h, changed = settleSaved(2) // the bound on
	if _, ok := h.Pending[unpinned.url]; ok || !changed {
		t.Errorf("the bound on: pending %v, files changed %v; want it dropped", h.Pending, changed)
	}
	if a := m.agents[0]; h.Agents[a.url].Size != a.size || h.Fault != nil {
		t.Errorf("the pinned agent's listing is %+v (fault %+v), want its checkpoint of %d", h.Agents[a.url], h.Fault, a.size)
	}
}
