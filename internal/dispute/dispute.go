// Package dispute reads and writes MANIFEST-DISPUTE files: what a node
// publishes when a peer serves bytes whose sha256 differs from the hash the
// peer's MANIFEST.md claims for them (docs/protocol.md §6.5: a mismatch is
// rejected and logged, and may be published as a dispute, §7.4).
// A dispute is evidence anyone can re-check by fetching file_url again; it
// accuses no one of intent (a site generator rewriting line endings is the
// usual cause). The package does no I/O, fetches nothing and imports
// nothing else of this module but manifest, for the Hash it names.
//
// A node publishes disputes at its own base URL as
// disputes/dispute-<first 12 hex of the claimed hash>.md, one per claimed
// hash and disputed agent (FileNameAt names the others sharing those 12
// hex digits), in a layout modelled on the canonical validation file:
//
//	# MANIFEST-DISPUTE
//
//	reporter: jolt37
//	reporter_url: https://jolt37.hive37.ai/traces/
//	agent: abernath37
//	agent_url: https://abernath37.hive37.ai/traces/
//	file_url: https://abernath37.hive37.ai/traces/traces/knowledge-mesh-design.md
//	seq: 107
//	claimed_hash: sha256:<64 hex, from the agent's MANIFEST.md>
//	served_hash: sha256:<64 hex, of the bytes file_url served>
//	observed_at: 2026-02-23T16:15:00Z
//
//	notes: one line of free text
//
// Keys are lowercase and in this order; times are RFC 3339 in UTC with
// fractional seconds only when nonzero; hashes are "sha256:<64 lowercase
// hex>". Readers ignore keys they do not know.
package dispute

import (
	"strconv"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Dispute is one observed mismatch between a claimed and a served hash.
type Dispute struct {
	Reporter    string        // the node that saw the mismatch
	ReporterURL string        // its trace URL
	Agent       string        // the peer whose MANIFEST.md made the claim
	AgentURL    string        // the peer's trace URL
	FileURL     string        // the URL whose bytes were fetched
	Seq         manifest.Seq  // the MANIFEST row's seq
	ClaimedHash manifest.Hash // what the MANIFEST row says
	ServedHash  manifest.Hash // what the served bytes hash to
	ObservedAt  time.Time     // when the bytes were fetched
	Notes       string        // one paragraph
}

// Title is the first line of every dispute file.
const Title = "# MANIFEST-DISPUTE"

// fileNameHexDigits is how much of the claimed hash names the file, as for
// validations (docs/protocol.md §7.1: "val-{hash-prefix}.md").
const fileNameHexDigits = 12

// FileName returns "dispute-" and the first 12 hex digits of the claimed
// hash, ".md". Anything that is not a hex digit is dropped, so a malformed
// hash can never make a path.
func FileName(claimedHash manifest.Hash) string {
	return "dispute-" + claimedHash.Hex(fileNameHexDigits) + ".md"
}

// FileNameAbout is the name of a dispute of claimedHash about the agent
// at agentURL once FileName(claimedHash) holds a dispute about another
// agent (two agents' rows may claim one hash): "dispute-", the first 12
// hex digits of the claimed hash, "-", the first 12 hex digits of the
// sha256 of agentURL, ".md". It depends on nothing but the two, so a
// node never publishes two disputes of one claim about one agent.
func FileNameAbout(claimedHash manifest.Hash, agentURL string) string {
	return "dispute-" + claimedHash.Hex(fileNameHexDigits) + "-" + manifest.HashBytes([]byte(agentURL)).Hex(fileNameHexDigits) + ".md"
}

// FileNameAt is the i-th name, from 0, a dispute of claimedHash about the
// agent at agentURL may be published under, the first that no file takes
// being the one: FileName, then FileNameAbout, then "dispute-", the first
// 12 hex digits of the claimed hash, "-", the name's place in this order
// in decimal (3, 4, …), ".md". The names are all different and never run
// out, so every claim sharing the first 12 hex digits of its hash with
// others (an agent's rows may claim any 64 hex digits) has one; a node
// that takes the first free one in the order it found its disputes names
// them as another node that found them in that order does. An i below 0
// is 0.
func FileNameAt(claimedHash manifest.Hash, agentURL string, i int) string {
	switch {
	case i <= 0:
		return FileName(claimedHash)
	case i == 1:
		return FileNameAbout(claimedHash, agentURL)
	}
	return "dispute-" + claimedHash.Hex(fileNameHexDigits) + "-" + strconv.Itoa(i+1) + ".md"
}
