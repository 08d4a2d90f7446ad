package relay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// mesh is agents, pinned by a node, and relays that list them.
type mesh struct {
	site   *site
	agents []*agent
	relays []*publisher
	held   []*Held
	rd     *Reader
}

func newMesh(t *testing.T, agents, relays int) *mesh {
	m := &mesh{site: newSite(t)}
	pins := newPins(t)
	for i := range agents {
		a := newAgent(t, fmt.Sprintf("https://agent%03d.example/mesh/", i))
		a.pin(pins)
		m.agents = append(m.agents, a)
	}
	for i := range relays {
		p := newPublisher(t, m.site, fmt.Sprintf("relay%d", i))
		p.add(t, m.entries(t, m.agents)...)
		m.relays = append(m.relays, p)
		m.held = append(m.held, &Held{URL: p.rel.URL, Key: p.rel.Key})
	}
	m.rd = &Reader{Client: testClient(), Pins: pins, Now: t0}
	return m
}

func (m *mesh) entries(t *testing.T, as []*agent) []Entry {
	var out []Entry
	for _, a := range as {
		out = append(out, a.entry(t))
	}
	return out
}

// read reads every relay, failing the test on a read error, and returns
// the requests and bytes each cost.
func (m *mesh) read(t *testing.T) (requests, bytes []int) {
	t.Helper()
	for i, p := range m.relays {
		if _, err := m.rd.Read(context.Background(), p.rel, m.held[i]); err != nil {
			t.Fatal(err)
		}
		r, b := m.site.counts(p.dir)
		requests, bytes = append(requests, r), append(bytes, b)
	}
	return requests, bytes
}

func (m *mesh) view(cursors map[string]*state.Cursor, now time.Time) *View {
	return NewView(m.held, m.rd.Pins, func(u string) *state.Cursor { return cursors[u] }, DefaultDirectPoll, now)
}

// polled is a cursor of an agent polled directly at at, with news at news.
func polled(at, news time.Time) *state.Cursor {
	return &state.Cursor{LastPolled: at, LastNews: news, NewestEntry: news}
}

func TestNodeReadsOnlyTheNewPartOfEachRelay(t *testing.T) {
	m := newMesh(t, 300, 2)
	req1, bytes1 := m.read(t)
	for i, h := range m.held {
		if h.Read != 300 || len(h.Agents) != 300 || h.Fault != nil {
			t.Fatalf("relay %d: read %d, %d agents, fault %+v after the first read", i, h.Read, len(h.Agents), h.Fault)
		}
	}
	changed := m.agents[7:10]
	for _, a := range changed {
		a.size++
	}
	for _, p := range m.relays {
		p.add(t, m.entries(t, changed)...)
	}
	req2, bytes2 := m.read(t)
	for i := range m.relays {
		t.Logf("relay %d: first read %d requests %d bytes; with 3 agents changed %d requests %d bytes", i, req1[i], bytes1[i], req2[i], bytes2[i])
		// The checkpoint, the partial bundle it grew, the level-1 tile.
		if req2[i] > 3 || bytes2[i]*4 > bytes1[i] {
			t.Errorf("relay %d: %d requests, %d bytes to read 3 new entries (first read %d bytes)", i, req2[i], bytes2[i], bytes1[i])
		}
		if got := m.held[i].Agents[changed[0].url].Size; got != 2 {
			t.Errorf("relay %d lists %s at size %d, want 2", i, changed[0].url, got)
		}
	}
	req3, bytes3 := m.read(t)
	for i := range m.relays {
		if req3[i] != 1 || bytes3[i] != 0 {
			t.Errorf("relay %d unchanged: %d requests, %d bytes; want one conditional request and no body", i, req3[i], bytes3[i])
		}
	}
	now := t0.Add(time.Hour)
	cursors := map[string]*state.Cursor{}
	for _, a := range m.agents {
		cursors[a.url] = polled(t0, t0)
	}
	v := m.view(cursors, now)
	if !v.Due(changed[1].url, cursors[changed[1].url], now) {
		t.Error("an agent two relays list as grown is not due")
	}
	if v.Due(m.agents[100].url, cursors[m.agents[100].url], now) {
		t.Error("an agent the relays list as unchanged is due before the direct-poll bound")
	}
}

func TestWithholdingRelayDelaysAnAgentAtMostTheDirectPollBound(t *testing.T) {
	m := newMesh(t, 3, 1)
	m.read(t)
	a := m.agents[1]
	c := polled(t0, t0.Add(-48*time.Hour))
	a.size++ // published at t0 + 1m; the relay never lists it
	published := t0.Add(time.Minute)
	var dueAt time.Time
	saved := 0
	for now := t0.Add(30 * time.Minute); now.Before(t0.Add(3 * DefaultDirectPoll)); now = now.Add(30 * time.Minute) {
		m.rd.Now = now
		m.read(t)
		cursors := map[string]*state.Cursor{a.url: c}
		if m.view(cursors, now).Due(a.url, c, now) {
			dueAt = now
			break
		}
		if c.Due(now) {
			saved++
		}
	}
	if dueAt.IsZero() || dueAt.Sub(published) > DefaultDirectPoll {
		t.Fatalf("withheld agent due at %v, more than the bound %v after it published at %v", dueAt, DefaultDirectPoll, published)
	}
	if saved == 0 {
		t.Fatalf("agent due at %v, and its own schedule polled it no sooner: the relay's vouching saved nothing", dueAt)
	}
}

func TestDirectPollBoundIsDerivedNotStored(t *testing.T) {
	m := newMesh(t, 40, 1)
	m.read(t)
	news := t0.Add(-72 * time.Hour)
	phases := map[time.Duration]bool{}
	for _, a := range m.agents {
		// last_polled as a file keeps it: not when the agent was last polled.
		c := polled(news, news)
		polls := 0
		for now := t0; now.Before(t0.Add(2 * DefaultDirectPoll)); now = now.Add(30 * time.Minute) {
			if m.view(map[string]*state.Cursor{a.url: c}, now).Due(a.url, c, now) {
				polls++
				phases[now.Sub(t0)%DefaultDirectPoll] = true
			}
		}
		if polls != 2 {
			t.Fatalf("agent %s vouched for, polled %d times in two bounds, want 2", a.url, polls)
		}
	}
	if len(phases) < 10 {
		t.Fatalf("40 agents' direct polls fall on %d heartbeats of the day: not spread", len(phases))
	}
}

func TestLaggingRelayIsNoticedAndVouchesForNothing(t *testing.T) {
	m := newMesh(t, 3, 2)
	m.read(t)
	a, other := m.agents[0], m.agents[2]
	a.size++
	m.relays[1].add(t, a.entry(t)) // relay 1 lists it, relay 0 does not
	m.read(t)
	now := t0.Add(2 * time.Hour)
	cursors := map[string]*state.Cursor{a.url: polled(t0, t0), other.url: polled(t0.Add(time.Hour), t0.Add(-48*time.Hour))}
	v := m.view(cursors, now)
	if s := v.StatusOf(m.held[0]); s.State != StateLagging {
		t.Fatalf("relay 0, behind relay 1 for 2h: %+v", s)
	}
	if s := v.StatusOf(m.held[1]); s.State != StateOK {
		t.Fatalf("relay 1: %+v", s)
	}
	// Behind a direct poll too: the node read size 2 an hour ago.
	a.pin(m.rd.Pins)
	v = NewView(m.held[:1], m.rd.Pins, func(u string) *state.Cursor { return cursors[u] }, DefaultDirectPoll, now)
	if s := v.StatusOf(m.held[0]); s.State != StateLagging {
		t.Fatalf("relay 0, behind a direct poll for 2h: %+v", s)
	}
	c := cursors[other.url]
	if got, want := v.Due(other.url, c, now), c.Due(now); got != want {
		t.Fatalf("a lagging relay's vouching changed whether an agent is due: %v, its schedule says %v", got, want)
	}
}

func TestRelayMisdeedsAreCaughtAndTheAgentReadDirectly(t *testing.T) {
	tests := []struct {
		name string
		// misdeed makes relay p serve something no honest relay serves
		// after a first honest read; it returns the agent concerned.
		misdeed func(t *testing.T, m *mesh, p *publisher) *agent
		want    string
	}{
		{"relay alters an agent's checkpoint", func(t *testing.T, m *mesh, p *publisher) *agent {
			a := m.agents[0]
			// The agent's signature kept, its size raised.
			forged := []byte(replaceLine(string(a.checkpoint(t)), 1, "7"))
			p.add(t, Entry{Agent: a.url, Checkpoint: forged})
			return a
		}, FaultForged},
		{"relay serves an agent checkpoint another key signed", func(t *testing.T, m *mesh, p *publisher) *agent {
			a := m.agents[1]
			impostor := newAgent(t, a.url)
			impostor.size = 9
			p.add(t, impostor.entry(t))
			return a
		}, FaultForged},
		{"relay forks its own log", func(t *testing.T, m *mesh, p *publisher) *agent {
			a := m.agents[2]
			a.size++
			p.log = &Log{} // a larger log that does not extend the one read
			p.add(t, append(m.entries(t, m.agents[1:]), m.agents[0].entry(t), a.entry(t))...)
			return a
		}, FaultFork},
		{"relay rewrites its log at the same size", func(t *testing.T, m *mesh, p *publisher) *agent {
			a := m.agents[2]
			a.size++
			p.log = &Log{}
			p.add(t, m.entries(t, m.agents)...)
			return a
		}, FaultFork},
		{"relay's checkpoint signed by another key", func(t *testing.T, m *mesh, p *publisher) *agent {
			a := m.agents[0]
			a.size++
			p.skey, _ = keyFor(t, p.rel.URL)
			p.add(t, a.entry(t))
			return a
		}, FaultSignature},
		{"relay alters an entry bundle it signed", func(t *testing.T, m *mesh, p *publisher) *agent {
			a := m.agents[0]
			a.size++
			files := p.add(t, a.entry(t))
			for name, data := range files {
				if name != translog.CheckpointFile && isBundlePath(name) {
					bad := append([]byte(nil), data...)
					bad[len(bad)-10] ^= 1
					p.site.put(p.dir, withFile(files, name, bad))
				}
			}
			return a
		}, FaultAltered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMesh(t, 3, 1)
			m.read(t)
			a := tt.misdeed(t, m, m.relays[0])
			h := m.held[0]
			m.rd.Read(context.Background(), m.relays[0].rel, h)
			now := t0.Add(time.Hour)
			c := polled(t0, t0.Add(-48*time.Hour))
			cursors := map[string]*state.Cursor{a.url: c}
			if h.Fault == nil {
				if !m.view(cursors, now).Due(a.url, c, now) {
					t.Fatal("an agent whose relayed checkpoint did not verify is not polled directly now")
				}
				Settle(m.held, m.rd.Pins, now) // after the direct poll, the pin as it was
			}
			if h.Fault == nil || h.Fault.Kind != tt.want {
				t.Fatalf("fault %+v, want %s", h.Fault, tt.want)
			}
			if len(h.Fault.Checkpoints) == 0 {
				t.Error("the fault keeps no evidence")
			}
			if n, err := m.rd.Read(context.Background(), m.relays[0].rel, h); n != 0 || err != nil {
				t.Errorf("a faulted relay was read again: %d requests, %v", n, err)
			}
			v := m.view(cursors, now)
			if got, want := v.Due(a.url, c, now), c.Due(now); got != want {
				t.Errorf("a faulted relay still decides when the agent is polled (due %v, its schedule %v)", got, want)
			}
			if s := v.StatusOf(h); s.State != StateFaulted {
				t.Errorf("status %+v", s)
			}
		})
	}
}

func TestRelayedCheckpointOfARotatedKeyIsNoFault(t *testing.T) {
	m := newMesh(t, 2, 1)
	m.read(t)
	a := m.agents[0]
	rotated := newAgent(t, a.url)
	rotated.size = 3
	m.relays[0].add(t, rotated.entry(t))
	m.read(t)
	if m.held[0].Fault != nil || m.held[0].Pending[a.url] == "" {
		t.Fatalf("fault %+v, pending %v", m.held[0].Fault, m.held[0].Pending)
	}
	rotated.pin(m.rd.Pins) // the direct poll followed the rotation
	Settle(m.held, m.rd.Pins, t0)
	if h := m.held[0]; h.Fault != nil || h.Agents[a.url].Size != 3 || len(h.Pending) != 0 {
		t.Fatalf("fault %+v, listed %+v, pending %v", h.Fault, h.Agents[a.url], h.Pending)
	}
}
