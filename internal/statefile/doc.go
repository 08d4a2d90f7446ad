// Package statefile stores one of the node's state files (the cursors, the
// ledger, the queue) as a directory of small JSON files, one per peer, so
// that a heartbeat in which one peer changed rewrites that peer's file
// only and no file grows with the whole mesh; a state file older nodes
// kept whole is read and migrated. Every state package reads and writes
// through it and reports a file it cannot decode as a *CorruptError, so
// callers branch on one error type for every state file.
//
// It knows nothing of what the files hold.
package statefile
