package relay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/meshnode/meshnode/internal/slowtest"
	"github.com/meshnode/meshnode/internal/translog"
)

// paddedEntry is a's entry, its checkpoint padded with signatures of
// keys nobody holds up to almost translog.MaxEntryBytes: an entry a
// hostile relay may serve, which still verifies with the agent's key.
func (a *agent) paddedEntry(t testing.TB) Entry {
	t.Helper()
	return padded(a.entry(t))
}

// padded is e with signature lines of keys nobody holds added up to
// almost translog.MaxEntryBytes.
func padded(e Entry) Entry {
	for i := 0; ; i++ {
		sig := sha256.Sum256(fmt.Appendf(nil, "%s %d", e.Agent, i))
		line := fmt.Appendf(nil, "— pad%d.example %s\n", i, base64.StdEncoding.EncodeToString(append(sig[:], sig[:]...)))
		if len(agentPrefix)+len(e.Agent)+1+len(e.Checkpoint)+len(line) > translog.MaxEntryBytes {
			return e
		}
		e.Checkpoint = append(e.Checkpoint, line...)
	}
}

// relayOf is a mesh of n agents, pinned, and one relay that lists each
// with entry(a).
func relayOf(t *testing.T, n int, entry func(*agent, testing.TB) Entry) *mesh {
	t.Helper()
	m := newMesh(t, 0, 0)
	for i := range n {
		a := newAgent(t, fmt.Sprintf("https://agent%05d.example/mesh/", i))
		a.pin(m.rd.Pins)
		m.agents = append(m.agents, a)
	}
	p := newPublisher(t, m.site, "relay0")
	es := make([]Entry, n)
	for i, a := range m.agents {
		es[i] = entry(a, t)
	}
	p.add(t, es...)
	m.relays = []*publisher{p}
	m.held = []*Held{{URL: p.rel.URL, Key: p.rel.Key}}
	return m
}

// readOnce reads relay 0 of m into h with rd, failing the test on a
// read error, and returns the bytes it fetched.
func readOnce(t *testing.T, m *mesh, rd *Reader, h *Held) int {
	t.Helper()
	if _, err := rd.Read(context.Background(), m.relays[0].rel, h); err != nil {
		t.Fatal(err)
	}
	_, b := m.site.counts(m.relays[0].dir)
	return b
}

// unbounded reads relay 0 of m afresh in one read without bounds.
func unbounded(t *testing.T, m *mesh) *Held {
	t.Helper()
	rd := &Reader{Client: testClient(), Pins: m.rd.Pins, Now: m.rd.Now, MaxEntries: 1 << 40, MaxBytes: 1 << 40}
	h := &Held{URL: m.relays[0].rel.URL, Key: m.relays[0].rel.Key}
	readOnce(t, m, rd, h)
	if h.Read != h.Size || h.Fault != nil {
		t.Fatalf("unbounded read: %d of %d entries, fault %+v", h.Read, h.Size, h.Fault)
	}
	return h
}

// TestHostileRelayReadFetchesAtMostItsByteBudget: a relay whose log is
// of entries of 4 KiB is read over several reads, each fetching at most
// the budget and the bundles and tiles of one step, not the whole log.
func TestHostileRelayReadFetchesAtMostItsByteBudget(t *testing.T) {
	const budget = defaultMaxBytes
	n := int(5 * budget / 2 / translog.MaxEntryBytes) // 2.5 budgets of entries
	// The node polls the last 3 agents, whose entries verify; the others'
	// entries it passes over, unverified, as it does for agents it does
	// not poll.
	m := relayOf(t, 3, (*agent).paddedEntry)
	p := m.relays[0]
	p.log = &Log{}
	var es []Entry
	for i := range n - 3 {
		u := fmt.Sprintf("https://stranger%05d.example/mesh/", i)
		es = append(es, padded(Entry{Agent: u, Checkpoint: fmt.Appendf(nil, "stranger%05d.example/mesh\n1\n%s\n\n", i, b64(make([]byte, 32)))}))
	}
	for _, a := range m.agents {
		es = append(es, a.paddedEntry(t))
	}
	p.add(t, es...)
	m.rd.Known = func(u string) bool { return m.rd.Pins.Get(u) != nil }
	h := m.held[0]
	slack := 3*maxBundleBytes + 4*maxHashTileBytes + translog.MaxCheckpointBytes
	reads := 0
	for h.Read < int64(n) && reads < 10 {
		b := readOnce(t, m, m.rd, h)
		reads++
		t.Logf("read %d: %d bytes, %d of %d entries read", reads, b, h.Read, h.Size)
		if b > budget+slack {
			t.Fatalf("read %d fetched %d bytes, more than the budget %d and one step's %d", reads, b, budget, slack)
		}
		if h.Fault != nil {
			t.Fatalf("fault %+v", h.Fault)
		}
	}
	if h.Read != int64(n) || len(h.Agents) != 3 || reads > 3 {
		t.Fatalf("%d reads: %d of %d entries read, %d agents listed", reads, h.Read, n, len(h.Agents))
	}
}

// TestRelayReadInPartsEqualsOneUnboundedRead: a relay read within a
// small budget, growing between reads, ends holding what one read
// without bounds holds.
func TestRelayReadInPartsEqualsOneUnboundedRead(t *testing.T) {
	m := relayOf(t, 1300, (*agent).entry)
	m.rd.MaxBytes = 1 // a bundle a read
	h := m.held[0]
	reads := 0
	for reads == 0 || h.Read < h.Size && reads < 100 {
		readOnce(t, m, m.rd, h)
		reads++
		if h.Fault != nil {
			t.Fatalf("read %d: fault %+v", reads, h.Fault)
		}
		if reads == 2 {
			// The relay grows while the node is reading it: the rest is
			// read under the new checkpoint, joined to the old by a proof.
			grown := m.agents[10:20]
			for _, a := range grown {
				a.size++
			}
			m.relays[0].add(t, m.entries(t, grown)...)
		}
	}
	if reads < 5 {
		t.Fatalf("read whole in %d reads: the budget did not bind", reads)
	}
	want := unbounded(t, m)
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("read in %d parts: size %d, read %d, %d agents; one read: size %d, read %d, %d agents",
			reads, h.Size, h.Read, len(h.Agents), want.Size, want.Read, len(want.Agents))
	}
	if got := h.Agents[m.agents[15].url].Size; got != 2 {
		t.Fatalf("an agent the relay listed anew while being read is held at size %d, want 2", got)
	}
}

// TestRelayAlteringItsLogBetweenPartialReadsIsCaught: what a relay
// changes in its log after a first partial read, the next read refuses,
// and nothing it served unverified is taken.
func TestRelayAlteringItsLogBetweenPartialReadsIsCaught(t *testing.T) {
	tests := []struct {
		name string
		// alter changes the relay's log after a read of read entries, and
		// returns the file the fault names, "" for none.
		alter func(t *testing.T, m *mesh, p *publisher, read int64) string
		want  string
	}{
		{"a hash tile", func(t *testing.T, m *mesh, p *publisher, _ int64) string {
			level1 := tlog.Tile{H: translog.TileHeight, L: 1, W: len(m.agents) >> translog.TileHeight}
			p.site.alter(p.dir, "log/"+translog.TilePath(level1), func(b []byte) { b[40] ^= 1 })
			return ""
		}, FaultAltered},
		{"the bundle read next", func(t *testing.T, m *mesh, p *publisher, read int64) string {
			next := tlog.Tile{H: translog.TileHeight, L: -1, N: read >> translog.TileHeight, W: 1 << translog.TileHeight}
			p.site.alter(p.dir, "log/"+translog.TilePath(next), func(b []byte) { b[100] ^= 1 })
			return translog.TilePath(next)
		}, FaultAltered},
		{"its history, re-signed larger", func(t *testing.T, m *mesh, p *publisher, _ int64) string {
			history := p.log.Entries
			m.agents[0].size++
			p.log = &Log{}
			p.add(t, append(slices.Clone(history[1:]), m.agents[0].entry(t))...)
			return ""
		}, FaultFork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := relayOf(t, 1300, (*agent).entry)
			m.rd.MaxBytes = 1 // a bundle a read
			h := m.held[0]
			readOnce(t, m, m.rd, h)
			read, listed, cp := h.Read, len(h.Agents), h.Checkpoint
			if read == 0 || read >= h.Size || h.Fault != nil {
				t.Fatalf("first read: %d of %d entries, fault %+v: not a partial read", read, h.Size, h.Fault)
			}
			file := tt.alter(t, m, m.relays[0], read)
			readOnce(t, m, m.rd, h)
			if h.Fault == nil || h.Fault.Kind != tt.want {
				t.Fatalf("fault %+v, want %s", h.Fault, tt.want)
			}
			if !strings.Contains(h.Fault.Detail, file) {
				t.Errorf("the fault says %q, not the file at fault %s", h.Fault.Detail, file)
			}
			if len(h.Fault.Checkpoints) == 0 || h.Fault.Checkpoints[0] != cp {
				t.Errorf("the fault's evidence %q does not start with the checkpoint held", h.Fault.Checkpoints)
			}
			if h.Read != read || len(h.Agents) != listed {
				t.Errorf("after the fault: %d entries read, %d agents listed; before it %d, %d", h.Read, len(h.Agents), read, listed)
			}
		})
	}
}

// TestFirstReadOfARelayOfAHundredThousandAgentsEndsInThreeReads: the
// byte budget lets a node read a relay listing 100,000 agents, each entry
// of an honest relay's size (about 240 bytes), in three heartbeats. Slow:
// 100,000 entries built, served and parsed take about 20 s under the race
// detector.
func TestFirstReadOfARelayOfAHundredThousandAgentsEndsInThreeReads(t *testing.T) {
	slowtest.Require(t)
	const agents = 100_000
	a := newAgent(t, "https://agent00000.example/mesh/")
	a.size = 12345
	cp := a.checkpoint(t) // the size of an honest entry's checkpoint
	es := make([]Entry, agents)
	for i := range es {
		es[i] = Entry{Agent: fmt.Sprintf("https://agent%05d.example/mesh/", i), Checkpoint: bytes.Replace(cp, []byte("agent00000"), fmt.Appendf(nil, "agent%05d", i), 2)}
	}
	m := newMesh(t, 0, 0)
	p := newPublisher(t, m.site, "relay0")
	p.add(t, es...)
	m.relays = []*publisher{p}
	// Entries of agents the node does not poll are passed over: what is
	// counted is what reading them costs.
	m.rd.Known = func(string) bool { return false }
	h := &Held{URL: p.rel.URL, Key: p.rel.Key}
	reads := 0
	for reads == 0 || h.Read < h.Size && reads < 10 {
		b := readOnce(t, m, m.rd, h)
		reads++
		t.Logf("read %d: %d bytes, %d of %d entries read", reads, b, h.Read, h.Size)
	}
	if h.Read != agents || reads != 3 || h.Fault != nil {
		t.Fatalf("%d reads: %d of %d entries read, fault %+v", reads, h.Read, agents, h.Fault)
	}
}
