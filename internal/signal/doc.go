// Package signal computes SIGNAL, tiers and the resolution of every trace
// (pending, validated, failed, contested) from public files the node has
// seen: peers' MANIFEST rows and validations recorded in the ledger, and
// the node's own traces and validations. Anyone holding the same files
// gets the same numbers.
//
// It must not fetch, and it must not read anything private: a number that
// cannot be reproduced from public files is not SIGNAL. Compute is pure;
// FromSnapshot reads a node's snapshot (internal/node), and Load, which
// opens one, is the only function that touches the disk, and only reads.
package signal
