package heartbeat

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestARelaysListingOfAnAgentNoLongerPolledIsDropped: a relay lists an
// agent the node polls; a person takes the agent out of AGENTS.md. The
// node no longer polls it and passes over the relay's new entries of it,
// so what the relay listed of it before is dropped, its file with it, at
// the next heartbeat; the heartbeat after writes nothing of the relays.
// Before, the listing stayed for ever, read by nothing, and the relay
// still showed the agent among those it lists.
func TestARelaysListingOfAnAgentNoLongerPolledIsDropped(t *testing.T) {
	m := newRelayMesh(t)
	m.publish(t, testNow.Add(-2*time.Hour))
	m.relayRun(t)
	m.beat(t, testNow)
	relays := filepath.Join(m.nodeDir, node.RelaysFile)
	listed := func() map[string]relay.Listed {
		store, err := relay.LoadStore(relays)
		if err != nil {
			t.Fatal(err)
		}
		held := store.All()
		if len(held) != 1 {
			t.Fatalf("relays held: %+v", held)
		}
		return held[0].Agents
	}
	if _, ok := listed()[m.agentURL]; !ok {
		t.Fatal("setup: the node holds no listing of the agent")
	}

	write(t, m.nodeDir, node.AgentsFile, string(agentsFile()))
	sum, _ := m.beat(t, testNow.Add(cursorStep))
	if got := listed(); len(got) != 0 {
		t.Errorf("the relay's listings held after the agent left AGENTS.md: %+v", got)
	}
	if len(sum.Relays) != 1 || sum.Relays[0].Agents != 0 {
		t.Errorf("the summary's relays: %+v, want one listing no agent", sum.Relays)
	}
	_, files, err := statefile.Read(relays)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files[statefile.PeerFileName(m.agentURL)]; ok || len(files) != 1 {
		t.Errorf("the relays' state holds %d files, want the relay's alone", len(files))
	}

	dir := statefile.Dir(relays)
	before := filesIn(t, dir)
	m.beat(t, testNow.Add(2*cursorStep))
	if w := rewritten(t, dir, before); len(w) != 0 {
		t.Errorf("the heartbeat after wrote the relays' state again: %q", w)
	}
}
