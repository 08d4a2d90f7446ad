// Package translog is the node's signed, append-only log of what it
// published (docs/protocol.md §3.4): one entry per published file, the
// Merkle tree over them served as immutable tiles (C2SP tlog-tiles), and
// a checkpoint of the tree (C2SP checkpoint) signed as a C2SP signed note
// with the node's ed25519 key.
//
// The cryptography is golang.org/x/mod/sumdb: tlog for the tree, its
// hashes and tiles, note for keys and signatures. This package holds the
// formats (an entry, a checkpoint, a tile's path, an entry bundle, a key
// statement) and Update, which extends a published log with new rows. For
// readers it holds the pure checks of a change of key: VerifyRotation,
// VerifyRotationEntry and OpenRotated follow a rotation from a pinned key,
// VerifyRestart reads a restart that only an operator may accept. It reads
// and writes no file: internal/node owns where the log lives.
package translog
