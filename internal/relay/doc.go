// Package relay is a relay's index of agents' signed checkpoints
// (docs/protocol.md §3.5) and how a node reads it (docs/decisions.md,
// "Relays").
//
// A relay reads agents' signed logs as a node does (Poller, through
// logsource.Source: key pinned on first contact, rotations followed) and
// publishes, as a signed log in translog's format under its own key, an
// entry each time an agent's accepted checkpoint changes: the agent's URL
// and its signed checkpoint, byte for byte (Entry, Extend). A node reads
// a relay's log incrementally, as a peer's: the checkpoint conditionally,
// then only the entry bundles it has not read, every leaf verified
// against the relay's signed root and every new tree against the last by
// a consistency proof (Reader). Each relayed checkpoint is verified with
// the agent's own key the node pinned on first contact, never with one a
// relay names, so a relay can delay or omit but never forge: what a relay
// alters, or a relay log that forks, is a Fault kept with its evidence,
// and the relay is not used again until an operator acts.
//
// View turns what the relays hold into when each agent is due: news on a
// relay makes it due now, a relay that lists the checkpoint the node
// holds lets its direct poll wait up to the direct-poll bound, and a
// relay that lags behind another or behind a direct poll counts for
// nothing but news.
//
// The cryptography is golang.org/x/mod/sumdb (note, tlog) through
// internal/translog's formats. It makes requests only through the
// fetch.Client it is given; it writes only its Held state (through
// statefile) and, for a relay, the relay's log (through node.WriteLog)
// and its pins of the agents (logpin).
package relay
