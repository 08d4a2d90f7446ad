package heartbeat

import (
	"fmt"
	"sort"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
)

// What peers can make us publish and hold for them (docs/security.md,
// "Every limit and why"; docs/decisions.md, "Budgets"). Four peers with
// 6,500 tiny traces each once had a founder publish 20,000 validations in
// one heartbeat and 26,000 in the next, every one a file and a row of our
// MANIFEST.md. A trace over a bound waits in the queue for a later
// heartbeat; one past the queue's bounds is recorded in the ledger but not
// queued. An honest peer publishing a few traces a day meets none.
const (
	// maxValidationsPerPeerPerHeartbeat bounds the validations of one
	// peer's traces we publish in one heartbeat, scored by us or stored
	// in the queue by a worker.
	maxValidationsPerPeerPerHeartbeat = 100
	// maxValidationsPerPeerPerDay bounds them over the last 24 hours,
	// counted from our MANIFEST.md's rows of that time.
	maxValidationsPerPeerPerDay = 1000
	// maxValidationsPerHeartbeat bounds the validations of all peers'
	// traces we publish in one heartbeat: about 160 KB of MANIFEST.md rows.
	maxValidationsPerHeartbeat = 1000
	// maxQueuedPerPeer bounds one peer's traces waiting in the queue
	// (queued or in progress): two days of its daily share.
	maxQueuedPerPeer = 2000
	// maxQueued bounds the traces waiting in the queue in all.
	maxQueued = 20_000
)

// day is the window of maxValidationsPerPeerPerDay.
const day = 24 * time.Hour

// pubLimits are the bounds above, as a value tests can shrink.
type pubLimits struct {
	perPeer, perPeerDay, perHeartbeat, queuedPerPeer, queued int
}

var defaultPubLimits = pubLimits{
	perPeer: maxValidationsPerPeerPerHeartbeat, perPeerDay: maxValidationsPerPeerPerDay,
	perHeartbeat: maxValidationsPerHeartbeat, queuedPerPeer: maxQueuedPerPeer, queued: maxQueued,
}

// pubBudget is what this heartbeat may still publish of each peer's.
type pubBudget struct {
	limits pubLimits
	day    map[string]int // peer URL → validations published in the last 24 hours, this run's included
	run    map[string]int // peer URL → validations published this run
	total  int
	held   map[heldKey]int
	names  map[string]string // peer URL → name, for the summary
}

type heldKey struct{ url, reason string }

// Reasons the summary gives for what a bound held back, with the bound.
const (
	heldPerHeartbeat = "validations held back: at most %d of one peer's traces a heartbeat; they wait in the queue"
	heldPerDay       = "validations held back: at most %d of one peer's traces a day; they wait in the queue"
	heldInAll        = "validations held back: at most %d a heartbeat of all peers' traces; they wait in the queue"
	heldQueuePerPeer = "traces not queued for validation: %d of this peer's already wait, the most the queue holds of one peer"
	heldQueue        = "traces not queued for validation: %d wait, the most the queue holds"
)

// publishing returns the heartbeat's budget of validations, counting
// what was published in the last 24 hours the first time it is asked.
func (n *job) publishing() *pubBudget {
	if n.pub == nil {
		l := defaultPubLimits
		if n.opts.pubLimits != nil {
			l = *n.opts.pubLimits
		}
		n.pub = &pubBudget{limits: l, day: n.publishedToday(), run: map[string]int{}, held: map[heldKey]int{}, names: map[string]string{}}
	}
	return n.pub
}

// publishedToday counts, by peer URL, our validations whose row (in
// MANIFEST.md or, at 48,000 a day, an archive page) is less than a day
// old: only those rows' files are read.
func (n *job) publishedToday() map[string]int {
	out := map[string]int{}
	since := n.now.Add(-day)
	for _, e := range n.snap.Rows() {
		if node.KindOf(e) != node.KindValidation || e.Submitted.Before(since) {
			continue
		}
		f, ok := n.snap.File(e.File)
		if !ok {
			continue
		}
		v, err := n.snap.Validation(f)
		if err != nil {
			continue
		}
		if t := n.ledger.Traces[v.TraceHash]; t != nil {
			out[t.AgentURL]++
		}
	}
	return out
}

// take spends one validation of the trace of item it, or reports false,
// and notes why, when a bound holds it back.
func (b *pubBudget) take(it queue.Item) bool {
	l, why := b.limits, ""
	switch {
	case b.day[it.FromURL] >= l.perPeerDay:
		why = fmt.Sprintf(heldPerDay, l.perPeerDay)
	case b.run[it.FromURL] >= l.perPeer:
		why = fmt.Sprintf(heldPerHeartbeat, l.perPeer)
	case b.total >= l.perHeartbeat:
		why = fmt.Sprintf(heldInAll, l.perHeartbeat)
	}
	if why != "" {
		b.hold(it, why)
		return false
	}
	b.total++
	b.run[it.FromURL]++
	b.day[it.FromURL]++
	return true
}

func (b *pubBudget) hold(it queue.Item, why string) {
	b.held[heldKey{it.FromURL, why}]++
	b.names[it.FromURL] = it.From
}

// report adds what the budget held back to the summary, once, at the end
// of the heartbeat.
func (n *job) reportHeld() {
	if n.pub == nil {
		return
	}
	keys := make([]heldKey, 0, len(n.pub.held))
	for k := range n.pub.held {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].url < keys[j].url || keys[i].url == keys[j].url && keys[i].reason < keys[j].reason
	})
	for _, k := range keys {
		n.holdBack(peer{name: n.pub.names[k.url], url: k.url}, n.pub.held[k], k.reason)
	}
}

// admit returns the items of toQueue the queue may take: a peer's traces
// while it has fewer than maxQueuedPerPeer waiting, all peers' while fewer
// than maxQueued wait; the rest are held back, noted in the budget. It
// reads the queue's items at work; a trace it would hold back may be a
// settled item's, which Enqueue would skip, so then it reads them all.
func (n *job) admit(toQueue []queue.Item) ([]queue.Item, error) {
	if len(toQueue) == 0 {
		return nil, nil
	}
	a, err := n.queue.Active()
	if err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	b := n.publishing()
	out, held := admitted(toQueue, a.Items, b.limits)
	if len(held) > 0 {
		all, err := n.queue.List()
		if err != nil {
			return nil, fmt.Errorf("read queue: %w", err)
		}
		out, held = admitted(toQueue, all, b.limits)
	}
	for _, h := range held {
		b.hold(h.item, h.why)
	}
	return out, nil
}

// heldItem is a trace admitted holds back, and why.
type heldItem struct {
	item queue.Item
	why  string
}

// admitted splits toQueue into the items the queue, holding items, may
// take within limits and those held back.
func admitted(toQueue, items []queue.Item, limits pubLimits) (out []queue.Item, held []heldItem) {
	waiting := map[string]int{}
	total := 0
	queued := map[manifest.Hash]bool{}
	for _, it := range items {
		queued[it.Hash] = true
		if it.Status == queue.StatusQueued || it.Status == queue.StatusInProgress {
			waiting[it.FromURL]++
			total++
		}
	}
	for _, it := range toQueue {
		switch {
		case queued[it.Hash]:
			out = append(out, it) // already there: Enqueue adds nothing
		case total >= limits.queued:
			held = append(held, heldItem{it, fmt.Sprintf(heldQueue, limits.queued)})
		case waiting[it.FromURL] >= limits.queuedPerPeer:
			held = append(held, heldItem{it, fmt.Sprintf(heldQueuePerPeer, limits.queuedPerPeer)})
		default:
			out = append(out, it)
			waiting[it.FromURL]++
			total++
			queued[it.Hash] = true
		}
	}
	return out, held
}
