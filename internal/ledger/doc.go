// Package ledger holds mesh-state/ledger/, a file per peer: what this node has seen of
// its peers' published files. It keeps metadata only (hash, seq, type,
// title, status, citations, verdicts, scores), which is what SIGNAL, presence, the
// peers listing and the site need; peers' content is never stored here.
//
// The ledger is a record, not a judge: it does not compute SIGNAL or decide
// a trace's resolution, and it does no network I/O. Like the other state
// files it is written atomically with sorted keys, and a file it cannot
// read is reported as *statefile.CorruptError and never overwritten.
package ledger
