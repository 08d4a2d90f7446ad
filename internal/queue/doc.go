// Package queue holds the node's validation queue: peers' pending traces
// waiting to be scored, with the claims of the workers scoring them
// (docs/protocol.md §12).
//
// An item moves queued → in_progress → done | failed | skipped, each step
// with a reason. A worker claims items with an owner, a lease (default 2
// minutes, docs/protocol.md §12.3) and a version; every later update is
// compare-and-swap on that version, so a worker whose lease was taken over
// cannot clobber its successor (docs/protocol.md §12: "if renewal fails,
// stop mutating shared state").
// A crashed worker's item is taken over once its lease expires.
//
// The queue lives behind Store, the operations a worker needs: init,
// enqueue, fetch queued, claim with lease, update status, list, and the
// items at work with the settled ones counted (Active). Every
// operation takes a batch, so a heartbeat claims what it will score in one
// call and finishes what it scored in a few: the cost per item is
// constant whatever the queue's size. File, the embedded default, keeps
// mesh-state/queue/, with the settled items apart in
// mesh-state/queue-settled/, read only by the calls that need them: each
// call is one read-modify-write under an flock
// on queue.json.lock, written atomically, so several processes can share
// the queue and a crash at any point leaves the old file or the new one.
// pgqueue keeps the queue in PostgreSQL for workers on several machines;
// both pass the conformance suite in queuetest (docs/queue.md).
//
// The queue must not decide anything on a person's behalf: only an update
// of kind Decide, sent on explicit intent (`meshnode inbox done|fail|skip
// ID`), finishes an item that nobody claimed (docs/protocol.md
// §12.4: "nothing acknowledged without intent"). It does no network I/O.
package queue
