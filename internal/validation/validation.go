// Package validation reads and writes validation files: one validator's
// scores of one trace, named by the trace's URL and sha256. It reads the
// canonical layout of seed 000, the older v0.2 layout and real
// "validation" traces, and writes only the canonical layout. It does no I/O.
package validation

import "time"

// Dimensions are the six scoring dimensions of seed 000, in canonical order.
var Dimensions = [NumDimensions]string{
	"substance", "uniqueness", "specificity", "actionability", "structure", "freshness",
}

const (
	// NumDimensions is the number of scoring dimensions.
	NumDimensions = 6
	// MaxScore is the highest score of one dimension (seed 000: 0–5).
	MaxScore = 5
	// MaxTotal is the highest total (six dimensions of five).
	MaxTotal = NumDimensions * MaxScore
	// PassThreshold is the lowest total that passes (seed 000: 18 of 30).
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
	TraceHash    string // "sha256:<hex>"
	ValidatedAt  time.Time
	Result       string // ResultPass or ResultFail
	Total        int
	Scores       Scores
	HasScores    bool   // false when the source gave only a verdict or a total
	Notes        string // one paragraph
}
