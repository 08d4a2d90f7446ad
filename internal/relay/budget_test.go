package relay

import (
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

// padding is signature lines of keys nobody holds, more than an entry
// has room for: what a hostile relay may add to an agent's checkpoint,
// which still verifies with the agent's key.
var padding = func() [][]byte {
	var lines [][]byte
	for i := range translog.MaxEntryBytes / 100 {
		sig := sha256.Sum256(fmt.Appendf(nil, "pad %d", i))
		lines = append(lines, fmt.Appendf(nil, "— pad%d.example %s\n", i, base64.StdEncoding.EncodeToString(append(sig[:], sig[:]...))))
	}
	return lines
}()

// padded is e with padding added up to almost translog.MaxEntryBytes.
func padded(e Entry) Entry {
	room := translog.MaxEntryBytes - len(agentPrefix) - len(e.Agent) - 1 - len(e.Checkpoint)
	cp := slices.Clip(e.Checkpoint)
	for _, line := range padding {
		if len(line) > room {
			break
		}
		cp, room = append(cp, line...), room-len(line)
	}
	e.Checkpoint = cp
	return e
}

// stranger is the entry of the i-th agent the node has not pinned, as
// large as an honest one: the node holds it pending, unverified.
func stranger(i int) Entry {
	origin := fmt.Sprintf("stranger%05d.example/mesh", i)
	sum := sha256.Sum256([]byte(origin))
	sig := append(sum[:4:4], append(sum[:], sum[:]...)...)
	return Entry{Agent: "https://" + origin + "/",
		Checkpoint: fmt.Appendf(nil, "%s\n%d\n%s\n\n— %s %s\n", origin, i+1, b64(sum[:]), origin, b64(sig))}
}

// relayOf is a mesh of pinned agents and one relay that lists each
// agent, then strangers more agents the node has not pinned.
func relayOf(t *testing.T, pinned, strangers int) *mesh {
	t.Helper()
	m := newMesh(t, 0, 0)
	var es []Entry
	for i := range pinned {
		a := newAgent(t, fmt.Sprintf("https://agent%05d.example/mesh/", i))
		a.pin(m.rd.Pins)
		m.agents = append(m.agents, a)
		es = append(es, a.entry(t))
	}
	for i := range strangers {
		es = append(es, stranger(i))
	}
	p := newPublisher(t, m.site, "relay0")
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
	n := int(8 * budget / 5 / translog.MaxEntryBytes) // 1.6 budgets of entries
	// The node polls the last 3 agents, whose entries verify; the others'
	// entries it passes over, unverified, as it does for agents it does
	// not poll.
	m := relayOf(t, 3, 0)
	p := m.relays[0]
	p.log = &Log{}
	var es []Entry
	for i := range n - 3 {
		es = append(es, padded(stranger(i)))
	}
	for _, a := range m.agents {
		es = append(es, padded(a.entry(t)))
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
	m := relayOf(t, 20, 1280)
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
			level1 := tlog.Tile{H: translog.TileHeight, L: 1, W: len(p.log.Entries) >> translog.TileHeight}
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
			m := relayOf(t, 20, 580)
			m.rd.MaxBytes = 1 // a bundle a read
			h := m.held[0]
			readOnce(t, m, m.rd, h)
			read, listed, pending, cp := h.Read, len(h.Agents), len(h.Pending), h.Checkpoint
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
			if h.Read != read || len(h.Agents) != listed || len(h.Pending) != pending {
				t.Errorf("after the fault: %d entries read, %d agents listed, %d pending; before it %d, %d, %d", h.Read, len(h.Agents), len(h.Pending), read, listed, pending)
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
	es := make([]Entry, agents)
	for i := range es {
		es[i] = stranger(i)
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
