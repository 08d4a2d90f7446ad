package relay

import (
	"context"
	"errors"
	"math"
	"sort"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/logsource"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// pollers is how many agents a relay polls at once.
const pollers = 16

// Poller is a relay's poll of its agents. Each agent's signed log is read
// exactly as a node reads it (logsource.Source): the key its IDENTITY.md
// publishes pinned on first contact, every checkpoint verified with the
// pinned key and joined to the last by a consistency proof, and a key
// rotation among the new entries followed as docs/protocol.md §3.4 says,
// so an agent that rotates its key goes on being relayed with no operator
// action, and a checkpoint of a key no rotation announced is refused.
type Poller struct {
	Client *fetch.Client
	Pins   *logpin.Pins
	// Now stamps the alarms of refused logs; zero is the clock's time.
	Now time.Time
	// Logf is called one line at a time, though agents are polled
	// concurrently.
	Logf func(format string, args ...any)
}

// Polled is what a poll found: the entries to append, how many agents
// were left out (not read, no log, or refused) and the requests made.
type Polled struct {
	Entries  []Entry
	LeftOut  int
	Requests int
}

// Poll reads every agent's log and returns the entries to append to a
// log whose latest checkpoint per agent is latest, sorted by agent: one
// per agent whose accepted checkpoint changed and did not shrink. An
// agent that cannot be read, publishes no signed log or whose log is
// refused is left out this run and logged.
func (p *Poller) Poll(ctx context.Context, agents []string, latest map[string][]byte) Polled {
	now := p.Now
	if now.IsZero() {
		now = time.Now()
	}
	// The agents are polled concurrently: this poll logs one line at a time.
	p = &Poller{Client: p.Client, Pins: p.Pins, Now: now, Logf: serialized(p.Logf)}
	src := &logsource.Source{Client: p.Client, Manifest: noManifest{}, Pins: p.Pins, Now: now, Logf: p.Logf}
	var mu sync.Mutex
	var out Polled
	var g errgroup.Group
	g.SetLimit(pollers)
	for _, a := range agents {
		g.Go(func() error {
			e, n, ok := p.poll(ctx, src, a, latest[a])
			mu.Lock()
			defer mu.Unlock()
			out.Requests += n
			if !ok {
				out.LeftOut++
			}
			if e != nil {
				out.Entries = append(out.Entries, *e)
			}
			return nil
		})
	}
	g.Wait()
	sort.Slice(out.Entries, func(i, j int) bool { return out.Entries[i].Agent < out.Entries[j].Agent })
	return out
}

// serialized is logf called under a lock.
func serialized(logf func(string, ...any)) func(string, ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logf(format, args...)
	}
}

// poll reads agent's log through src and returns its entry, nil when
// there is nothing new to relay, and false when the agent was left out.
func (p *Poller) poll(ctx context.Context, src *logsource.Source, agent string, last []byte) (*Entry, int, bool) {
	// The relay wants no entry handed on, only the checkpoint accepted:
	// a cursor past every seq makes the source read only what a
	// checkpoint needs verified (new entries, and the rest of a log read
	// in chunks).
	c := &state.Cursor{LastSeenSeq: manifest.Seq(math.MaxInt)}
	l, err := src.Read(ctx, source.Peer{Name: agent, URL: agent}, c)
	n := 0
	if l != nil {
		n = l.Requests
		if l.Release != nil {
			l.Release()
		}
	}
	if err != nil {
		p.Logf("agent %s: log not read, not relayed: %v", agent, err)
		return nil, n, false
	}
	pin := p.Pins.Get(agent)
	switch {
	case pin == nil || pin.Key == "" || pin.Checkpoint == "":
		p.Logf("agent %s: no signed log read (not reached, no %s in its IDENTITY.md, or no log/checkpoint): not relayed", agent, translog.IdentityKey)
		return nil, n, false
	case pin.Alarm != nil:
		p.Logf("agent %s: log refused (%s), not relayed: %s", agent, pin.Alarm.Kind, logpin.State(pin))
		return nil, n, false
	}
	body := []byte(pin.Checkpoint)
	if string(body) == string(last) {
		return nil, n, true
	}
	if size, ok := sizeOf(last); ok && size > sizeOf0(body) {
		// The relay's log holds a later checkpoint than the pin (it was
		// re-pinned): relayed again once the agent's log passes it.
		return nil, n, true
	}
	e := Entry{Agent: agent, Checkpoint: body}
	if _, err := e.Marshal(); err != nil {
		p.Logf("agent %s: not relayed: %v", agent, err)
		return nil, n, false
	}
	return &e, n, true
}

// sizeOf is the tree size a signed checkpoint states, read without
// checking its signatures (the key that signed an earlier one may have
// rotated since); false when msg is none.
func sizeOf(msg []byte) (int64, bool) {
	if len(msg) == 0 {
		return 0, false
	}
	_, err := note.Open(msg, note.VerifierList())
	var unverified *note.UnverifiedNoteError
	if !errors.As(err, &unverified) {
		return 0, false
	}
	cp, err := translog.ParseCheckpoint(unverified.Note.Text)
	if err != nil {
		return 0, false
	}
	return cp.Size, true
}

// sizeOf0 is sizeOf, 0 for none.
func sizeOf0(msg []byte) int64 {
	size, _ := sizeOf(msg)
	return size
}

// noManifest is the relay's reader of an agent without a signed log: a
// relay relays signed logs alone, so it reads no MANIFEST.md, and the
// listing it gives (not unchanged) lets logsource look at the agent's
// IDENTITY.md for a log key at every run.
type noManifest struct{}

func (noManifest) Read(context.Context, source.Peer, *state.Cursor) (*source.Listing, error) {
	return &source.Listing{RateLeft: -1}, nil
}
