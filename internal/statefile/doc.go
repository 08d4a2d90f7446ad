// Package statefile stores one of the node's state files (the cursors, the
// ledger, the queue) as a directory of shard files, 64 to start with, each
// holding the JSON contents of the peers its name picks and split in two
// when it would pass 4 MiB, so that a heartbeat in which some peers
// changed rewrites their shards only, no file grows with the whole mesh,
// and git's cost of a changed file is shared by a shard's peers. The
// copies stay a file per peer (the Flat functions). The files per peer
// and the single file older nodes kept are read and migrated. Every state
// package reads and writes through it and reports a file it cannot decode
// as a *CorruptError, so callers branch on one error type for every state
// file.
//
// It knows nothing of what the files hold.
package statefile
