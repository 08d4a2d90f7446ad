package relay

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
)

// TestStoreRewritesOnlyTheAgentsThatChanged holds the relays' state to
// what a heartbeat commits: after one agent's checkpoint changes on two
// relays, the relays' files and that agent's file are rewritten, no other
// agent's; and what is saved loads back the same.
func TestStoreRewritesOnlyTheAgentsThatChanged(t *testing.T) {
	m := newMesh(t, 50, 2)
	m.read(t)
	path := filepath.Join(t.TempDir(), "relays.json")
	s, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.relays {
		*s.Held(p.rel) = *m.held[i]
	}
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.All(), s.All()) {
		t.Fatalf("loaded back %+v\nsaved %+v", again.All()[0], s.All()[0])
	}
	// Save writes only files whose bytes change (statefile.Rewrite), so
	// the files whose bytes changed are the files written.
	names := func() map[string]string {
		out := map[string]string{}
		entries, _ := os.ReadDir(statefile.Dir(path))
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(statefile.Dir(path), e.Name()))
			out[e.Name()] = string(data)
		}
		return out
	}
	if got := len(names()); got != 52 {
		t.Fatalf("%d files for 2 relays and 50 agents, want 52", got)
	}
	before := names()
	a := m.agents[3]
	a.size++
	for _, p := range m.relays {
		p.add(t, a.entry(t))
	}
	m.read(t)
	for i, p := range m.relays {
		*again.Held(p.rel) = *m.held[i]
	}
	if changed, err := again.Save(); err != nil || !changed {
		t.Fatalf("save: %v, changed %v", err, changed)
	}
	rewritten := 0
	for name, data := range names() {
		if before[name] != data {
			rewritten++
		}
	}
	if rewritten != 3 {
		t.Fatalf("%d files rewritten after one agent changed on two relays, want 3 (the relays' and the agent's)", rewritten)
	}
	if changed, _ := again.Save(); changed {
		t.Fatal("a save with nothing new rewrote a file")
	}
}
