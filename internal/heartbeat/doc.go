// Package heartbeat runs one heartbeat of a node: docs/protocol.md §6.
//
// It loads the agents the node knows, polls each one's MANIFEST.md
// concurrently (bounded, each peer on its own deadline, politeness per host
// through internal/fetch), takes only what is new since the peer's cursor,
// oldest first, verifies every file's sha256 on the exact bytes, records
// what it learned in the ledger, queues others' pending traces for
// validation, scores them when the node has standing, publishes its
// validations and disputes, regenerates MANIFEST.md through internal/publish
// and saves the cursors.
//
// It never blocks on one agent: a peer that fails, times out, is refused or
// serves garbage counts as a failed poll of that peer and nothing more. Run
// returns an error only for local failures (bad config, corrupt state,
// unwritable files).
//
// Peers' content is never written into the node's directory: the ledger
// keeps metadata only.
package heartbeat
