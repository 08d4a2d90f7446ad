package relay

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// TestReaderKeepsTheNewestRelayedCheckpointForThePolls: Checkpoint gives
// the agent checkpoint a relay listed anew in this read, verbatim, the
// largest of all relays; nothing for an agent no relay listed anew, for
// two of one size with different roots, or from a relay that faulted.
func TestReaderKeepsTheNewestRelayedCheckpointForThePolls(t *testing.T) {
	m := newMesh(t, 3, 2)
	m.read(t)
	grown, forked, quiet := m.agents[0], m.agents[1], m.agents[2]
	m.rd = &Reader{Client: testClient(), Pins: m.rd.Pins, Now: t0.Add(time.Hour)}
	grown.size++
	m.relays[0].add(t, grown.entry(t))
	grown.size++
	newest := grown.checkpoint(t)
	m.relays[1].add(t, grown.entry(t))
	forked.size++
	m.relays[0].add(t, forked.entry(t))
	m.relays[1].add(t, Entry{Agent: forked.url, Checkpoint: signedAs(t, forked, "another root")})
	m.read(t)
	if got := m.rd.Checkpoint(grown.url); !bytes.Equal(got, newest) {
		t.Errorf("grown agent: relayed checkpoint\n%s\nwant the newest\n%s", got, newest)
	}
	if got := m.rd.Checkpoint(forked.url); got != nil {
		t.Errorf("two checkpoints of one size with different roots: %s taken", got)
	}
	if got := m.rd.Checkpoint(quiet.url); got != nil {
		t.Errorf("quiet agent: %s", got)
	}

	// A relay that faults in its read decides nothing, not even what it
	// listed before the entry that faulted it.
	m.rd = &Reader{Client: testClient(), Pins: m.rd.Pins, Now: t0.Add(2 * time.Hour)}
	quiet.size++
	m.relays[0].add(t, quiet.entry(t))
	m.relays[0].log.raw = append(m.relays[0].log.raw, []byte("not an entry\n"))
	grown.size++
	m.relays[0].add(t, grown.entry(t))
	if _, err := m.rd.Read(context.Background(), m.relays[0].rel, m.held[0]); err != nil {
		t.Fatal(err)
	}
	if m.held[0].Fault == nil || m.held[0].Agents[quiet.url].Size != quiet.size || m.rd.Checkpoint(quiet.url) != nil {
		t.Fatalf("faulted relay: fault %+v, listed %+v, checkpoint %q kept", m.held[0].Fault, m.held[0].Agents[quiet.url], m.rd.Checkpoint(quiet.url))
	}
}

// signedAs is a checkpoint of a's size with tag's root, signed with a's
// key.
func signedAs(t *testing.T, a *agent, tag string) []byte {
	t.Helper()
	origin, _ := translog.Origin(a.url)
	cp, err := translog.Sign(translog.Checkpoint{Origin: origin, Size: a.size, Root: tlogRecord(tag)}, a.skey)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestVouchedAgentWithEntriesLeftIsPolledEveryHeartbeat: an agent whose
// log is read in chunks, or whose files are to be fetched again, is
// polled at every heartbeat until they are read, though a relay lists
// the checkpoint the node holds; before, it waited for the direct-poll
// bound between chunks.
func TestVouchedAgentWithEntriesLeftIsPolledEveryHeartbeat(t *testing.T) {
	m := newMesh(t, 2, 1)
	m.read(t)
	for _, tc := range []struct {
		name string
		set  func(c *state.Cursor)
	}{
		{"backlog", func(c *state.Cursor) { c.Backlog = true }},
		{"retry", func(c *state.Cursor) { c.Retry = []manifest.Seq{3} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := m.agents[0]
			c := polled(t0, t0)
			tc.set(c)
			for now := t0.Add(30 * time.Minute); now.Before(t0.Add(3 * time.Hour)); now = now.Add(30 * time.Minute) {
				if !m.view(map[string]*state.Cursor{a.url: c}, now).Due(a.url, c, now) {
					t.Fatalf("not due at %v with entries left", now)
				}
			}
		})
	}
}
