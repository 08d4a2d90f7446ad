package relay

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
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
	if big > small+slack {
		t.Errorf("the view allocated %v times over 200 agents, %v over 20: it grows with the mesh", big, small)
	}
}

// TestRelaysJudgedOnceAnAgentAsEachAgainstAll checks the judging of
// lagging relays, which looks at each agent once, against the rule as
// stated, each relay's every agent against every relay and the pins,
// over generated listings of three relays, pins and cursors.
func TestRelaysJudgedOnceAnAgentAsEachAgainstAll(t *testing.T) {
	now := t0
	lagged := 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 5))
		pins := newPins(t)
		cursors := map[string]*state.Cursor{}
		var held []*Held
		for r := range 3 {
			held = append(held, &Held{URL: fmt.Sprintf("https://r%d.example/", r), Agents: map[string]Listed{}})
		}
		for a := range 6 {
			url := fmt.Sprintf("https://a%d.example/", a)
			for _, h := range held {
				if rng.IntN(3) > 0 {
					h.Agents[url] = Listed{Size: int64(rng.IntN(4)), Seen: now.Add(-time.Duration(rng.IntN(4)) * 30 * time.Minute)}
				}
			}
			if rng.IntN(2) == 0 {
				pins.Put(&logpin.Pin{URL: url, Key: "k", Accepted: []logpin.Tree{{Size: int64(rng.IntN(5))}}})
			}
			if rng.IntN(2) == 0 {
				cursors[url] = &state.Cursor{NewestEntry: now.Add(-time.Duration(rng.IntN(4)) * 30 * time.Minute)}
			}
		}
		v := NewView(held, pins, func(u string) *state.Cursor { return cursors[u] }, DefaultDirectPoll, now)
		for _, h := range held {
			want := lagsAsStated(h, held, pins, cursors, now)
			if v.lagging[h.URL] != want {
				t.Fatalf("seed %d: relay %s judged lagging %v, the rule says %v", seed, h.URL, v.lagging[h.URL], want)
			}
			if want {
				lagged++
			}
		}
	}
	if lagged == 0 {
		t.Fatal("no relay lagged in any generated mesh")
	}
}

// lagsAsStated is NewView's rule, as stated: h lags when an agent's
// checkpoint it lists trails one another relay listed, or a direct poll
// read, for longer than LagAfter.
func lagsAsStated(h *Held, relays []*Held, pins *logpin.Pins, cursors map[string]*state.Cursor, now time.Time) bool {
	for agent, l := range h.Agents {
		for _, o := range relays {
			if ol, ok := o.Agents[agent]; ok && ol.Size > l.Size && !ol.Seen.After(now.Add(-LagAfter)) {
				return true
			}
		}
		p := pins.Get(agent)
		if p != nil && p.Key != "" && len(p.Accepted) > 0 && p.Accepted[len(p.Accepted)-1].Size > l.Size {
			if c := cursors[agent]; c != nil && !c.NewestEntry.IsZero() && !c.NewestEntry.After(now.Add(-LagAfter)) {
				return true
			}
		}
	}
	return false
}
