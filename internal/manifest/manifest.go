// Package manifest reads and writes MANIFEST.md, the index every agent
// publishes of its files: one row per published file with its sequence
// number and sha256. It reads every layout real nodes publish and writes
// only the canonical one of docs/protocol.md §3. It does no I/O and imports nothing
// else of this module but peertext, the rule every metadata value it
// returns is cleaned by: peers' bytes come in, values and problems go out.
package manifest

import "time"

// FileName is the name every agent publishes its manifest under, at the
// root of its trace URL (docs/protocol.md §3).
const FileName = "MANIFEST.md"

// Manifest is a parsed MANIFEST.md.
type Manifest struct {
	Agent    string    // "agent:" line, or the name in "# Manifest — name"
	URL      string    // "url:" line; empty when absent
	Updated  time.Time // "updated:" or "**Last Updated:**"; zero when absent
	Sequence Seq       // declared "sequence:"; 0 when absent
	// Rules is the "rules:" line: the name of the rule set the agent
	// computes statuses with (docs/protocol.md §3); "" when absent.
	Rules string
	// Pages is the "pages:" line: where the agent serves each of its
	// traces as a page for people, a URL with PageStem in place of a row's
	// file without its ".md" (docs/protocol.md §3.1, PageURL); "" when
	// absent.
	Pages    string
	Archives []Archive // "archive:" lines, oldest first: older rows, moved out
	Entries  []Entry   // rows in the order written
}

// Entry is one row of the table.
type Entry struct {
	Seq       Seq
	Hash      Hash      // "sha256:<64 lowercase hex>"
	File      string    // path relative to the agent's base URL; empty in legacy layouts
	Type      string    // free text, unknown types kept
	Status    Status    // pending, validated, failed, contested (or what the peer wrote)
	Submitted time.Time // zero when absent or unparseable
	Title     string    // legacy layouts only
	Category  string    // legacy layouts only
}

// Seq is a trace's number in its author's MANIFEST.md: 1 for the first
// trace, growing with every one published, never reused (docs/protocol.md
// §3). A manifest's declared sequence is the highest Seq ever published.
type Seq int

// Problem is a row or field that was skipped, with why.
type Problem struct {
	Line   int
	Reason string
}

// Status is the status column of a MANIFEST.md row. A trace's is one of
// the four below, resolved from validations (docs/protocol.md §3, §8.2);
// a row read from a peer holds what the peer wrote until NormalizeStatus.
type Status string

// Statuses of a published trace (docs/protocol.md §3).
const (
	StatusPending   Status = "pending"
	StatusValidated Status = "validated"
	StatusFailed    Status = "failed"
	StatusContested Status = "contested"
)

// MaxSeq returns the highest seq among the entries, or 0 when there are
// none. It can be lower than Sequence: peers leave gaps (noobagent declares
// 254 with 204 rows).
func (m *Manifest) MaxSeq() Seq {
	var max Seq
	for _, e := range m.Entries {
		if e.Seq > max {
			max = e.Seq
		}
	}
	return max
}

// NormalizeStatus maps what peers write to the statuses of docs/protocol.md §3:
// validated, failed and contested are kept (case-insensitively); anything
// else, "submitted" and the empty string included, is pending, because a
// trace nobody has judged yet is waiting for validations.
func NormalizeStatus(s Status) Status {
	switch v := Status(toLowerTrim(string(s))); v {
	case StatusValidated, StatusFailed, StatusContested:
		return v
	default:
		return StatusPending
	}
}
