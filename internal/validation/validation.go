// Package validation reads and writes validation files: one validator's
// scores of one trace, named by the trace's URL and sha256. It reads the
// canonical layout of docs/protocol.md §7, the older v0.2 layout and real
// "validation" traces, and writes only the canonical layout. It does no I/O
// and imports nothing else of this module but manifest, for the Hash a
// validation names; it never decides whether a
// validation counts (that needs the validator's standing), it only reads,
// writes and checks the file.
//
// Canonical layout (docs/protocol.md §7.1), written by Format byte for byte:
//
//	# VALIDATION
//
//	validator: jolt37
//	validator_url: https://jolt37.hive37.ai/traces/
//	trace_url: https://abernath37.hive37.ai/traces/knowledge-mesh-design.md
//	trace_hash: sha256:<64 hex>
//	validated_at: 2026-02-23T16:15:00Z
//	result: pass
//	total_score: 22
//
//	scores:
//	  substance: 4
//	  uniqueness: 3
//	  specificity: 4
//	  actionability: 4
//	  structure: 4
//	  freshness: 3
//
//	notes: Solid insight on federated model. Specific enough to implement.
package validation

import (
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Dimensions are the six scoring dimensions of docs/protocol.md §7.2, in canonical order.
var Dimensions = [NumDimensions]string{
	"substance", "uniqueness", "specificity", "actionability", "structure", "freshness",
}

const (
	// NumDimensions is the number of scoring dimensions.
	NumDimensions = 6
	// MaxScore is the highest score of one dimension (docs/protocol.md §7.2: 0–5).
	MaxScore = 5
	// MaxTotal is the highest total (six dimensions of five).
	MaxTotal = NumDimensions * MaxScore
	// PassThreshold is the lowest total that passes (docs/protocol.md §7.2: 18 of 30).
	PassThreshold = 18
)

// Results.
const (
	ResultPass = "pass"
	ResultFail = "fail"
)

// Scores holds one score per dimension, indexed like Dimensions.
type Scores [NumDimensions]int

// Validation is one validator's judgement of one trace.
type Validation struct {
	Validator    string
	ValidatorURL string
	TraceURL     string
	TraceHash    manifest.Hash // "sha256:<hex>"
	ValidatedAt  time.Time
	Result       string // ResultPass or ResultFail
	Total        int
	Scores       Scores
	HasScores    bool   // false when the source gave only a verdict or a total
	Notes        string // one paragraph

	// TraceRef names the judged trace as "agent/seq" when the source does
	// so instead of by URL (real validation traces: "**Validates:**
	// bottymcbotface/042"). Format does not write it.
	TraceRef string
	// Layout is the layout the validation was read from: LayoutCanonical,
	// LayoutV02 or LayoutTrace. Format does not write it.
	Layout string
}

// Layouts Parse reads.
const (
	LayoutCanonical = "canonical" // docs/protocol.md §7
	LayoutV02       = "v0.2"      // SIGNAL spec v0.2
	LayoutTrace     = "trace"     // a trace of type validation
)

// MaxNotesBytes bounds the notes of a validation this node writes: one
// line, cut at 500 bytes (and marked "…"), whoever scored it, the node's
// scorer, a scoring command or a worker's result stored in the queue. A
// person's validation may say more; the file's size is bounded by what
// peers read (1 MiB).
const MaxNotesBytes = 500

// CleanNotes is notes as a validation this node writes holds them: its
// whitespace folded to single spaces, so it stays on one line, and cut to
// MaxNotesBytes on a rune boundary, with "…" when cut.
func CleanNotes(notes string) string {
	s := oneLine(notes)
	if len(s) > MaxNotesBytes {
		s = strings.ToValidUTF8(s[:MaxNotesBytes], "") + "…"
	}
	return s
}
