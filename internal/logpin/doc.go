// Package logpin holds what the node keeps of each peer's signed log
// (docs/protocol.md §3.4, §6.9): the pin of its key and last accepted
// checkpoint, the key rotations followed, and an alarm with its evidence
// when the log contradicted itself, one file per peer under
// mesh-state/log-pins/ (node.LogPinsFile), and State, the one wording of
// how the node reads a peer that `meshnode peers`, the heartbeat's
// summary and the site show.
//
// It imports no network code: internal/logsource, which reads the logs,
// writes the pins through it, and the site reads them through it.
package logpin
