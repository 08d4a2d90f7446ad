// Package queue holds mesh-state/queue.json, the node's validation queue:
// peers' pending traces waiting to be scored, with the claims of the
// workers scoring them (seeds 002 and 003).
//
// An item moves queued → in_progress → done | failed | skipped, each step
// with a reason. A worker claims an item with an owner, a lease (default 2
// minutes, docs/protocol.md §12.3) and a version; every later update is compare-and-swap
// on that version, so a worker whose lease was taken over cannot clobber
// its successor (docs/protocol.md §12: "if renewal fails, stop mutating shared state").
// A crashed worker's item is taken over once its lease expires.
//
// Every call is one locked read-modify-write of the file: an flock on
// queue.json.lock, then an atomic write, so several processes can share the
// queue and a crash at any point leaves either the old file or the new one.
//
// The queue must not decide anything on a person's behalf: only Set, called
// on explicit intent (`meshnode inbox done|fail|skip ID`), finishes an item
// that nobody claimed (docs/protocol.md §12.4: "nothing acknowledged without intent").
// It does no network I/O.
package queue
