// Package presence tells whether a peer is active, stale, offline or
// unreachable, from ages alone: a crashed node sends no goodbye, so it is
// detected by its heartbeat growing old (docs/protocol.md §10).
//
// The original thresholds (docs/protocol.md §10) beat every 60 s and call an agent active under 5 minutes,
// stale from 5 to 15 and offline beyond: 5 and 15 heartbeats. The mesh
// beats every 30 minutes (docs/protocol.md §1), so the same multiples give active
// under 150 minutes, stale from 150 to 450, offline beyond 450.
//
// The rule, in order:
//
//  1. A cursor marked unreachable or gone by the circuit breaker makes the
//     peer "unreachable".
//  2. A peer we have never polled successfully is "offline": we know
//     nothing of it.
//  3. The peer's heartbeat is the `updated:` time of its MANIFEST, or,
//     when it writes none, the last time we saw its MANIFEST change. With
//     neither, it is "offline".
//  4. By the heartbeat's age: "active" under ActiveFor, "stale" up to
//     OfflineAfter, "offline" beyond. A heartbeat in the future (a skewed
//     clock) counts as now.
//
// The package computes; it reads and writes nothing.
package presence
