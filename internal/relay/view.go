package relay

import (
	"hash/fnv"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// LagAfter is how long a relay may trail what the node knows of an agent
// (a direct poll, or another relay) before it is judged lagging: two
// heartbeats, the time an honest relay polling every heartbeat needs.
const LagAfter = time.Hour

// DefaultDirectPoll is how long an agent that a relay lists as unchanged
// may go without a direct poll (config relays.direct_poll): the longest
// a relay that withholds the agent's news can delay it.
const DefaultDirectPoll = 24 * time.Hour

// View is what the relays say of each agent, for one heartbeat: when an
// agent is due, and which relays lag. Its methods may be called from
// the poll goroutines.
type View struct {
	relays []*Held
	pins   *logpin.Pins
	bound  time.Duration
	// lagging are the relays judged lagging, by URL.
	lagging map[string]bool
}

// NewView judges the relays held against the pins and cursors as the
// heartbeat starts: a relay lags when an agent's checkpoint it lists
// trails one another relay listed, or a direct poll read, for longer than
// LagAfter. Faulted relays count for nothing.
func NewView(held []*Held, pins *logpin.Pins, cursor func(url string) *state.Cursor, bound time.Duration, now time.Time) *View {
	v := &View{pins: pins, bound: bound, lagging: map[string]bool{}}
	for _, h := range held {
		if h.Fault == nil {
			v.relays = append(v.relays, h)
		}
	}
	lagging := v.judge(cursor, now)
	for i, h := range v.relays {
		v.lagging[h.URL] = lagging[i]
	}
	return v
}

// judge reports, for each relay of v, whether it trails, for some agent
// it lists, what the node knew of the agent LagAfter ago: a larger
// checkpoint another relay listed by then, or one a direct poll read
// while the agent's newest entry is that old. Each agent is judged once,
// whichever relays list it, and the judging stops once every relay lags.
func (v *View) judge(cursor func(string) *state.Cursor, now time.Time) []bool {
	since := now.Add(-LagAfter)
	lagging := make([]bool, len(v.relays))
	sizes := make([]int64, len(v.relays))
	left := len(v.relays)
	for i, h := range v.relays {
		for agent, l := range h.Agents {
			if left == 0 {
				return lagging
			}
			if !v.listedBefore(i, agent) {
				left -= v.judgeAgent(agent, i, l, sizes, lagging, cursor, since)
			}
		}
	}
	return lagging
}

// listedBefore reports whether a relay before the i-th lists agent.
func (v *View) listedBefore(i int, agent string) bool {
	for _, h := range v.relays[:i] {
		if _, ok := h.Agents[agent]; ok {
			return true
		}
	}
	return false
}

// judgeAgent marks lagging the relays from the i-th on (none before it
// lists agent; it lists l) whose listing of agent trails what the node
// knew of it at since, and returns how many it newly marked. sizes is
// scratch space, a size per relay.
func (v *View) judgeAgent(agent string, i int, l Listed, sizes []int64, lagging []bool, cursor func(string) *state.Cursor, since time.Time) int {
	known, least := int64(-1), l.Size
	for j := i; j < len(v.relays); j++ {
		o, ok := l, j == i
		if !ok {
			o, ok = v.relays[j].Agents[agent]
		}
		sizes[j] = -1
		if !ok {
			continue
		}
		sizes[j], least = o.Size, min(least, o.Size)
		if !o.Seen.After(since) {
			known = max(known, o.Size)
		}
	}
	if t, ok, _ := v.pins.Latest(agent); ok && t.Size > least && t.Size > known {
		if c := cursor(agent); c != nil && !c.NewestEntry.IsZero() && !c.NewestEntry.After(since) {
			known = t.Size
		}
	}
	marked := 0
	for j := i; j < len(v.relays); j++ {
		if sizes[j] >= 0 && sizes[j] < known && !lagging[j] {
			lagging[j] = true
			marked++
		}
	}
	return marked
}

// Due reports whether the agent at url, with cursor c, is polled directly
// now. News on any relay makes it due; a relay that does not lag listing
// the checkpoint the node holds lets it wait for its direct poll, which
// comes once every direct-poll bound (BoundDue); otherwise its own
// schedule decides (c.Due). A failing agent follows its circuit breaker
// alone, and one with entries left to read (a log read in chunks, files
// to fetch again) its schedule, which polls it every heartbeat until
// they are read.
func (v *View) Due(url string, c *state.Cursor, now time.Time) bool {
	if v == nil || len(v.relays) == 0 || c.LastPolled.IsZero() || c.FailureCount > 0 || c.Unread() {
		return c.Due(now)
	}
	held, ok, alarm := v.pins.Latest(url)
	if !ok || alarm {
		return c.Due(now)
	}
	vouched := false
	for _, h := range v.relays {
		if _, ok := h.Pending[url]; ok {
			return true
		}
		l, ok := h.Agents[url]
		switch {
		case !ok:
		case l.Size > held.Size, l.Size == held.Size && l.Root != held.Root:
			// News, or a checkpoint the agent signed that contradicts
			// ours: its direct read judges it.
			return true
		case l.Size == held.Size && !v.lagging[h.URL]:
			vouched = true
		}
	}
	if !vouched {
		return c.Due(now)
	}
	return BoundDue(url, c, now, v.bound)
}

// BoundDue reports whether the direct poll of a vouched-for agent falls
// at now: every bound since the node last saw its news, on the heartbeat
// grid, at a phase its URL gives, so agents vouched for together spread
// over the heartbeats. Derived, not stored, as the quiet schedule is
// (docs/decisions.md, "Adaptive polling"): a poll that finds nothing
// leaves the agent's file as it was, so its last_polled on disk is not
// when it was last polled. A heartbeat that does not run delays the
// agents it would have polled by one more bound.
func BoundDue(url string, c *state.Cursor, now time.Time, bound time.Duration) bool {
	if c.LastNews.IsZero() || c.LastNews.After(now) {
		return c.Due(now)
	}
	period := max(int64(bound/presence.Heartbeat), 1)
	j := int64((now.Sub(c.LastNews) + presence.Heartbeat/2) / presence.Heartbeat)
	h := fnv.New64a()
	h.Write([]byte(url))
	phase := int64(h.Sum64() % uint64(period))
	return j >= 1 && ((j-phase)%period+period)%period == 0
}

// Settle judges the checkpoints held pending against the pins as they
// are after the direct polls they made due: one the agent's pinned key
// now verifies (a first contact, or a rotation followed) is listed; one
// of an agent still not pinned stays pending, PendingUnpinned at most
// since it was first read; any other was forged by the relay, a fault.
func Settle(held []*Held, pins *logpin.Pins, now time.Time) {
	for _, h := range held {
		agents := make([]string, 0, len(h.Pending))
		for a := range h.Pending {
			agents = append(agents, a)
		}
		sort.Strings(agents)
		for _, a := range agents {
			cp := h.Pending[a]
			pin := pins.Get(a)
			if pin == nil || pin.Key == "" {
				if now.Sub(h.PendingSeen[a]) >= PendingUnpinned {
					h.release(a)
				}
				continue
			}
			c, err := translog.Open([]byte(cp), pin.Key)
			if err != nil {
				h.Fault = &Fault{Kind: FaultForged, Detail: "the agent's pinned key does not verify the checkpoint it relayed: " + err.Error(),
					At: now, Checkpoints: nonEmpty(h.Checkpoint), Agent: a, Entry: cp}
				break
			}
			h.release(a)
			listed(h, a, c, now)
		}
	}
}

// Status is a relay as the summary shows it.
type Status struct {
	URL     string `json:"url"`
	State   string `json:"state"` // StateOK, StateLagging or StateFaulted
	Size    int64  `json:"size"`
	Read    int64  `json:"read"`
	Agents  int    `json:"agents"`
	Fault   string `json:"fault,omitempty"`
	Problem string `json:"problem,omitempty"` // this heartbeat's failure to read it
}

// The states of a relay.
const (
	StateOK      = "ok"
	StateLagging = "lagging"
	StateFaulted = "faulted"
)

// StatusOf is h's status in v.
func (v *View) StatusOf(h *Held) Status {
	s := Status{URL: h.URL, State: StateOK, Size: h.Size, Read: h.Read, Agents: len(h.Agents)}
	switch {
	case h.Fault != nil:
		s.State, s.Fault = StateFaulted, h.Fault.Kind+": "+h.Fault.Detail
	case v.lagging[h.URL]:
		s.State = StateLagging
	}
	return s
}
