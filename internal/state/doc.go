// Package state holds the node's polling state, mesh-state/polling-cursors/
// (the agent state of docs/protocol.md §6, extended): one cursor per peer with its circuit
// breaker, the gaps and retries a poll left behind, the hashes already
// processed with their first-seen times, and the politeness each host asked
// for. It is kept as a file per peer (internal/statefile), read together
// with the single file older nodes kept, which the next write replaces.
//
// The package does no network I/O and knows nothing of manifests: callers
// fetch and decide, this package remembers. It must never overwrite a file
// it could not read: a corrupt file is reported as *statefile.CorruptError and left
// on disk for a person to look at, because rewriting it would silently reset
// every cursor and re-fetch the whole mesh.
package state
