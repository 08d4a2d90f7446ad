package relay

import (
	"context"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// maxIdentityBytes bounds an agent's IDENTITY.md, read for its log_key.
const maxIdentityBytes = 64 << 10

// pollers is how many agents a relay polls at once.
const pollers = 16

// Poller is a relay's poll of its agents: each agent's log/checkpoint,
// verified with the key it pinned from the agent's IDENTITY.md on first
// contact.
type Poller struct {
	Client *fetch.Client
	Pins   *logpin.Pins
	Logf   func(format string, args ...any)
}

// Poll reads every agent's checkpoint and returns the entries to append
// to a log whose latest checkpoint per agent is latest, sorted by agent:
// one per agent whose verified checkpoint changed and did not shrink. An
// agent that cannot be read or verified is left out this run and logged.
// It returns the requests made too.
func (p *Poller) Poll(ctx context.Context, agents []string, latest map[string][]byte) ([]Entry, int) {
	var mu sync.Mutex
	var out []Entry
	requests := 0
	var g errgroup.Group
	g.SetLimit(pollers)
	for _, a := range agents {
		g.Go(func() error {
			e, n := p.poll(ctx, a, latest[a])
			mu.Lock()
			defer mu.Unlock()
			requests += n
			if e != nil {
				out = append(out, *e)
			}
			return nil
		})
	}
	g.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out, requests
}

// poll reads agent's checkpoint; the entry is nil when nothing changed.
func (p *Poller) poll(ctx context.Context, agent string, last []byte) (*Entry, int) {
	n := 0
	get := func(path string, max int64) ([]byte, error) {
		n++
		resp, err := p.Client.Get(ctx, fetch.Request{URL: agent + path, MaxBytes: max, Within: agent})
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}
	pin := p.Pins.Get(agent)
	if pin == nil || pin.Key == "" {
		id, err := get(node.IdentityFile, maxIdentityBytes)
		if err != nil {
			p.Logf("agent %s: %s not read: %v", agent, node.IdentityFile, err)
			return nil, n
		}
		keys := translog.Keys(id)
		if len(keys) != 1 {
			p.Logf("agent %s: %s publishes %d log keys, not one: not relayed", agent, node.IdentityFile, len(keys))
			return nil, n
		}
		pin = &logpin.Pin{URL: agent, Key: keys[0]}
	}
	body, err := get(node.LogDir+"/"+translog.CheckpointFile, translog.MaxCheckpointBytes)
	if err != nil {
		p.Logf("agent %s: checkpoint not read: %v", agent, err)
		return nil, n
	}
	cp, err := translog.Open(body, pin.Key)
	if err != nil {
		p.Logf("agent %s: checkpoint does not verify with its pinned key, not relayed: %v", agent, err)
		return nil, n
	}
	p.Pins.Put(pin)
	if string(body) == string(last) {
		return nil, n
	}
	if prev, err := translog.Open(last, pin.Key); err == nil && prev.Size > cp.Size {
		return nil, n // a stale copy
	}
	e := Entry{Agent: agent, Checkpoint: body}
	if _, err := e.Marshal(); err != nil {
		p.Logf("agent %s: %v", agent, err)
		return nil, n
	}
	return &e, n
}
