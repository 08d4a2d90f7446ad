// Package integrity is the one verification of a peer's file: the path
// rule (the file stays under the peer's base URL), the size cap, the hash
// the peer's entry claims, and a hook for a signature (Attester). The
// heartbeat's fetch, its score input, the queue worker and `meshnode
// check` all call it, so a file refused by one is refused by every one,
// for the same reason (Kind).
//
// It holds no state and makes no request of its own: a caller hands it a
// Getter (a fetch.Client with the caller's request options). It must not
// parse what it verifies: what a file says is the formats' business.
package integrity
