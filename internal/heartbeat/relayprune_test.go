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
// agent the node polls; then the node no longer polls it: a person takes
// it out of AGENTS.md, or it was a learned peer whose name a person binds
// to another URL, which the node forgets. The node passes over the
// relay's new entries of it, so what the relay listed of it before is
// dropped, its file with it, at the next heartbeat; the heartbeat after
// writes nothing of the relays. Before, the listing stayed for ever, read
// by nothing, and the relay still showed the agent among those it lists.
func TestARelaysListingOfAnAgentNoLongerPolledIsDropped(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(t *testing.T, m *relayMesh)
	}{
		{"taken out of AGENTS.md", func(t *testing.T, m *relayMesh) {
			write(t, m.nodeDir, node.AgentsFile, string(agentsFile()))
		}},
		{"a learned peer forgotten", func(t *testing.T, m *relayMesh) {
			st := loadState(t, m.nodeDir)
			st.Cursors[m.agentURL].LearnedFrom = "http://127.0.0.1:2/g/"
			if _, err := st.Save(filepath.Join(m.nodeDir, filepath.FromSlash(node.CursorsFile)), time.Time{}); err != nil {
				t.Fatal(err)
			}
			write(t, m.nodeDir, node.AgentsFile, string(agentsFile([2]string{"agent", "http://127.0.0.1:2/elsewhere/"})))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newRelayMesh(t)
			m.publish(t, testNow.Add(-2*time.Hour))
			m.relayRun(t)
			m.beat(t, testNow)
			if _, ok := relayListings(t, m.nodeDir)[m.agentURL]; !ok {
				t.Fatal("setup: the node holds no listing of the agent")
			}
			tc.stop(t, m)
			sum, _ := m.beat(t, testNow.Add(cursorStep))
			if c := loadState(t, m.nodeDir).Cursors[m.agentURL]; c != nil && c.LearnedFrom != "" {
				t.Fatalf("setup: the learned peer is not forgotten: %+v", c)
			}
			if got := relayListings(t, m.nodeDir); len(got) != 0 {
				t.Errorf("the relay's listings held once the agent is no longer polled: %+v", got)
			}
			if len(sum.Relays) != 1 || sum.Relays[0].Agents != 0 {
				t.Errorf("the summary's relays: %+v, want one listing no agent", sum.Relays)
			}
			relays := filepath.Join(m.nodeDir, node.RelaysFile)
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
		})
	}
}

// relayListings is what the node at dir holds of its one relay's
// listings, by agent URL.
func relayListings(t *testing.T, dir string) map[string]relay.Listed {
	t.Helper()
	store, err := relay.LoadStore(filepath.Join(dir, node.RelaysFile))
	if err != nil {
		t.Fatal(err)
	}
	held := store.All()
	if len(held) != 1 {
		t.Fatalf("relays held: %+v", held)
	}
	return held[0].Agents
}
