// Package audit recomputes a node's statuses and SIGNAL from public files
// and lists where its published MANIFEST.md and pages disagree with them: what
// `meshnode verify` does, so that a person can audit any node instead of
// trusting it.
//
// It reads the audited node's public files (a directory, or its URL), lays
// them out as a scratch node of its own name, and runs one heartbeat of
// that scratch node (internal/heartbeat, scorer manual, gossip off) to read
// the agents the audited node names in its AGENTS.md. SIGNAL is then
// computed as every node computes it (internal/signal), so the audit
// follows the very code a node runs. A status the audited node publishes
// that the files do not give is lag when it is what the files give
// without the peers' validations and traces dated after its MANIFEST's
// `updated:` (files it could not have polled yet), and a disagreement
// otherwise (docs/decisions.md, Verify).
//
// When the node publishes its static site (internal/site) beside its
// files, the audit also reads what its pages show that the files decide:
// each agent's SIGNAL and tier on signal.html and each trace's status on
// its page, through the data attributes the site puts on them, and judges
// each value the same way. A site that is not served is a note.
//
// It never writes outside its scratch directory, which it removes.
package audit
