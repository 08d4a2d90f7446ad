package relay

import (
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/state"
)

// TestViewAllocatesNothingPerAgent holds the relays' view, which a
// heartbeat builds and asks of every agent, to work that does not grow
// with the mesh in what it allocates: judging two relays that list 20
// agents, or 200, and asking whether each agent is due allocate the
// same, since the pins are read without being copied.
func TestViewAllocatesNothingPerAgent(t *testing.T) {
	allocs := func(agents int) float64 {
		m := newMesh(t, agents, 2)
		m.read(t)
		news := t0.Add(-72 * time.Hour)
		cursors := map[string]*state.Cursor{}
		for _, a := range m.agents {
			cursors[a.url] = polled(news, news)
		}
		due := 0
		n := testing.AllocsPerRun(5, func() {
			v := m.view(cursors, t0)
			due = 0
			for _, a := range m.agents {
				if v.Due(a.url, cursors[a.url], t0) {
					due++
				}
			}
		})
		if due == agents {
			t.Fatalf("%d of %d agents due: want the relays' vouching to decide", due, agents)
		}
		return n
	}
	small, big := allocs(20), allocs(200)
	if big > small {
		t.Errorf("the view allocated %v times over 200 agents, %v over 20: it grows with the mesh", big, small)
	}
}
