// Package presence tells whether a peer is active, stale, offline,
// unreachable or unknown, from the public evidence of its life alone: a
// crashed node sends no goodbye, so it is detected by its evidence growing
// old (docs/protocol.md §10; the rule is decided in docs/decisions.md,
// "Presence").
//
// The rule, in order:
//
//  1. A cursor marked unreachable or gone by the circuit breaker, or a
//     peer polled and never reached, is "unreachable".
//  2. A peer never polled is "unknown": we know nothing of it.
//  3. The evidence is the newest of the MANIFEST's `updated:` time and the
//     newest `submitted` time of its rows. A time up to Skew after the
//     time judged at counts as that time; one further ahead is no
//     evidence. With no evidence, the peer is "offline".
//  4. By the evidence's age: "active" under ActiveFor (5 heartbeats, as
//     the seed's 5 minutes of a 60 s beat), "stale" up to OfflineAfter (a
//     week), "offline" beyond.
//
// Of is the one computation every command and the site call; Words says
// what a judgement rests on. The package computes; it reads and writes
// nothing.
package presence
