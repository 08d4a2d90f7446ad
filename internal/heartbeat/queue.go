package heartbeat

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/validation"
)

// openQueue returns the store of the node's validation queue: Options.Queue
// when the caller gave one; else the PostgreSQL store that
// MESHNODE_QUEUE_DSN names, when it is set (never mesh.yaml, which is
// public: docs/queue.md); else mesh-state/queue/. Enqueues are stamped
// with the heartbeat's time.
func (n *job) openQueue() (queue.Store, error) {
	now := func() time.Time { return n.now }
	if n.opts.Queue != nil {
		return n.opts.Queue, nil
	}
	if dsn, ok := pgqueue.NodeDSNFromEnv(); ok {
		s, err := sharedStore(dsn)
		if err != nil {
			return nil, err
		}
		return s.WithNow(now), nil
	}
	q := n.snap.Queue
	if err := q.Init(); err != nil {
		return nil, err
	}
	return q, nil
}

// pgStores are the PostgreSQL stores this process opened, by connection
// string: one pool each for the life of the process, however many
// heartbeats it runs.
var pgStores = struct {
	sync.Mutex
	m map[string]*pgqueue.Store
}{m: map[string]*pgqueue.Store{}}

func sharedStore(dsn string) (*pgqueue.Store, error) {
	pgStores.Lock()
	defer pgStores.Unlock()
	if s := pgStores.m[dsn]; s != nil {
		return s, nil
	}
	s, err := pgqueue.Connect(dsn)
	if err != nil {
		return nil, err
	}
	pgStores.m[dsn] = s
	return s, nil
}

// queueItems lists the queue's items at work once a heartbeat, after
// this run's enqueues: scoring, the workers' stored results and the
// summary's counts all read this one list, so an idle heartbeat reads
// each file of mesh-state/queue/ once, and no settled item (they are
// counted, in n.settled). What other processes change meanwhile is seen
// next heartbeat; the queue's compare-and-swap keeps their changes either
// way.
func (n *job) queueItems() ([]queue.Item, error) {
	if !n.listed {
		// Settled items past queue.SettledRetention are not dropped here:
		// the queue's next write (an enqueue, a settle, a person's
		// decision) drops them, so a heartbeat that changes nothing in the
		// queue writes nothing (docs/decisions.md, "A quiet heartbeat").
		a, err := n.queue.Active()
		if err != nil {
			return nil, fmt.Errorf("read queue: %w", err)
		}
		n.items, n.settled, n.listed = a.Items, a.Settled, true
	}
	return n.items, nil
}

// noteEnded records in the listed queue the status each item this run
// claimed ended in, by ID, and leaves out the items it dropped.
func (n *job) noteEnded(ended map[string]string, dropped map[string]bool) {
	n.items = slices.DeleteFunc(n.items, func(it queue.Item) bool { return dropped[it.ID] })
	for i := range n.items {
		if st, ok := ended[n.items[i].ID]; ok {
			n.items[i].Status = st
		}
	}
}

// listedByItsPeer reports whether the ledger records the item's trace as
// listed by the peer the item names (ledger.ListedBy: FromURL, where an
// agent that moved or was respelled took its items along, moveAgent; the
// ledger's trace of that hash or a copy its lister did not withdraw). An
// item that fails it was queued from a peer the node has forgotten since,
// or that no longer lists the trace: scored or published, our validation
// would name as where the trace was published a URL its author never
// used, or fail to fetch it.
func (n *job) listedByItsPeer(it queue.Item) bool {
	listed, _ := n.ledger.ListedBy(it.FromURL, it.Hash)
	return listed
}

// dropUnlisted logs that it, whose peer does not list its trace
// (listedByItsPeer), leaves the queue unscored.
func (n *job) dropUnlisted(it queue.Item) {
	n.log.Warn("queue item dropped: the peer it names does not list its trace", "peer", it.From, "url", it.FromURL,
		"sha256", it.Hash, "id", it.ID)
}

// requeueDropped queues again, from the agent the ledger now records as
// listing it, the trace of each item dropped because its peer no longer
// lists it (listedByItsPeer): the author whose copy took the place of a
// mirror that withdrew its row, the author a forgotten impostor's listing
// hid. (An agent that moves takes its items along: moveAgent.) Its row was seen already, so
// nothing else would queue the trace again, and it would go without our
// vote. A trace the ledger no longer holds, or holds unverified, not
// pending, ours, or under the same peer, is not queued.
func (n *job) requeueDropped(gone []queue.Item) error {
	var again []queue.Item
	for _, it := range gone {
		t := n.led().WholeTrace(it.Hash)
		if t == nil || !t.Verified || t.AgentURL == it.FromURL || t.URL == "" ||
			!n.queueable(peer{name: t.Agent, url: t.AgentURL}, t.Hash, t.Status) {
			continue
		}
		again = append(again, queue.Item{
			ID: validation.ID(t.Hash), Hash: t.Hash, From: t.Agent, FromURL: t.AgentURL, TraceURL: t.URL,
			Type: t.Type, Title: t.Title, Seq: t.Seq, Submitted: t.Submitted, QueuedAt: n.now, UpdatedAt: n.now,
		})
		n.log.Info("trace queued again from the agent that lists it", "peer", t.Agent, "url", t.AgentURL, "sha256", t.Hash)
	}
	if len(again) == 0 {
		return nil
	}
	if _, err := n.queue.Enqueue(again...); err != nil {
		return fmt.Errorf("queue again the traces of dropped items: %w", err)
	}
	for _, it := range again {
		n.items = append(n.items, *queue.Fresh(it, n.now)) // as the store keeps it, so suggest sees it waiting
	}
	return nil
}

// notWithdrawn reports whether its own peer has not withdrawn its trace
// (ledger.ListedBy): only then may an automatic scorer claim it, since its
// validation names as where the trace is published a URL its author took
// it down from otherwise. It reads the ledger: the history is loaded.
func (n *job) notWithdrawn(it queue.Item) bool {
	_, withdrawn := n.ledger.ListedBy(it.FromURL, it.Hash)
	return !withdrawn
}

// noteWithdrawn notes each queued item whose own peer withdrew its trace
// (queue.WaitWithdrawn), so that no claim hands it out (queue.Item.Withheld)
// and no heartbeat need read the history to pass over it again, and clears
// the note of each whose trace is no longer withdrawn (listed again, or
// listed by no one: then the claim drops it, listedByItsPeer), in one
// write, and only when something changes. A heartbeat that did not load
// the history asks nothing.
func (n *job) noteWithdrawn() error {
	if n.snap.Deferred() {
		return nil
	}
	var updates []queue.Update
	for _, it := range n.items {
		if it.Status != queue.StatusQueued {
			continue
		}
		switch withdrawn := !n.notWithdrawn(it); {
		case withdrawn && it.Reason != queue.WaitWithdrawn:
			updates = append(updates, noteWait(it, queue.WaitWithdrawn, n.now))
		case !withdrawn && it.Reason == queue.WaitWithdrawn:
			updates = append(updates, noteWait(it, "", n.now))
		}
	}
	if len(updates) == 0 {
		return nil
	}
	results, err := n.queue.Update(updates...)
	if err != nil {
		return fmt.Errorf("note withdrawn traces' items: %w", err)
	}
	reasons := map[string]string{}
	for i, err := range results {
		if err != nil {
			n.log.Warn("queue item not noted", "id", updates[i].ID, "err", err.Error())
			continue
		}
		reasons[updates[i].ID] = updates[i].Reason
	}
	n.noteReasons(reasons)
	return nil
}

// noteReasons records in the listed queue the reasons written, by ID.
func (n *job) noteReasons(reasons map[string]string) {
	for i := range n.items {
		if r, ok := reasons[n.items[i].ID]; ok {
			n.items[i].Reason = r
		}
	}
}
