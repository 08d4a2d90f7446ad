package ledger

import (
	"time"

	"github.com/meshnode/meshnode/internal/manifest"

	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
	"github.com/meshnode/meshnode/internal/verdict"
)

// Trace is the metadata of one file a peer published.
type Trace struct {
	Agent     string          `json:"agent"`
	AgentURL  string          `json:"agent_url"`
	Seq       manifest.Seq    `json:"seq"`
	Hash      manifest.Hash   `json:"hash,omitempty"` // left out of a file of partForm when it is its key
	File      string          `json:"file,omitempty"` // as the MANIFEST lists it; "" for legacy rows
	URL       string          `json:"url,omitempty"`  // the file's full URL; left out of a file of partForm when it is AgentURL + File
	Type      string          `json:"type,omitempty"`
	Category  string          `json:"category,omitempty"`
	Title     string          `json:"title,omitempty"`
	Status    manifest.Status `json:"status,omitempty"` // the peer's own status column, normalized
	Submitted time.Time       `json:"submitted,omitzero"`
	FirstSeen time.Time       `json:"first_seen,omitzero"`
	Cites     []string        `json:"cites,omitempty"` // "agent/seq"
	// Fingerprint is a 64-bit simhash of the body, computed by
	// internal/score for near-duplicate detection; opaque here.
	Fingerprint trace.Fingerprint `json:"fingerprint,omitempty"`
	// Verified is true when the served bytes matched the MANIFEST hash;
	// legacy rows with no file column are recorded unverified.
	Verified bool `json:"verified,omitempty"`
	// Verdicts are what the trace says of other agents' traces
	// (verdict.Judgements): real agents record their validations so.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// TakenDown says why the node no longer republishes the trace's text
	// (Withdrawn or Disputed), empty while it may: the node keeps no copy
	// of it and the site no reading view or feed entry; a withdrawn trace
	// has no row either (docs/decisions.md, "Taking a peer's text down").
	// The record stays, for SIGNAL.
	TakenDown string `json:"taken_down,omitempty"`
}

// Why a trace is taken down (Trace.TakenDown).
const (
	// Withdrawn: its author's MANIFEST.md no longer lists it.
	Withdrawn = "withdrawn"
	// Disputed: a dispute (ours or a peer's) says the file at its URL no
	// longer hashes to what its MANIFEST.md claims.
	Disputed = "disputed"
)

// Verdict is one judgement a trace gives another agent's trace, named as
// agent/seq the way its author wrote it: which trace that is, is SIGNAL's
// to resolve.
type Verdict struct {
	Agent  string `json:"agent"`  // the judged trace's author, lowercased
	Seq    int    `json:"seq"`    // the number the author wrote
	Result string `json:"result"` // verdict.Valid, Partial or Invalid
}

// VerdictsOf is the record of the judgements a trace by author gives.
func VerdictsOf(text []byte, author string) []Verdict {
	var out []Verdict
	for _, v := range verdict.Judgements(text, author) {
		out = append(out, Verdict{Agent: v.Agent, Seq: v.Seq, Result: string(v.Result)})
	}
	return out
}

// Validation is the metadata of one validation a peer published.
type Validation struct {
	Validator    string            `json:"validator"`
	ValidatorURL string            `json:"validator_url"`
	TraceURL     string            `json:"trace_url,omitempty"`
	TraceHash    manifest.Hash     `json:"trace_hash"`
	Result       string            `json:"result,omitempty"` // "pass" or "fail"
	Total        int               `json:"total"`
	Scores       validation.Scores `json:"scores"`
	HasScores    bool              `json:"has_scores,omitempty"` // false when only a verdict or a total was given
	ValidatedAt  time.Time         `json:"validated_at,omitzero"`
	SourceURL    string            `json:"source_url,omitempty"`  // the validation file's URL
	SourceHash   manifest.Hash     `json:"source_hash,omitempty"` // the validation file's hash
}

// ValidationOf is the record of a parsed validation file, as its file
// says: the validator it names, the trace it scores, its verdict, scores
// and time. Who it counts for, and where it was read, are the caller's to
// set (Validator, ValidatorURL, SourceURL, SourceHash): a file's own claim
// of its validator is only a claim.
func ValidationOf(v *validation.Validation) Validation {
	return Validation{
		Validator: v.Validator, ValidatorURL: v.ValidatorURL, TraceURL: v.TraceURL, TraceHash: v.TraceHash,
		Result: v.Result, Total: v.Total, Scores: v.Scores, HasScores: v.HasScores, ValidatedAt: v.ValidatedAt,
	}
}

// Rejection is a file whose served bytes did not match its MANIFEST hash.
type Rejection struct {
	Agent       string        `json:"agent"`
	AgentURL    string        `json:"agent_url"`
	Seq         manifest.Seq  `json:"seq"`
	ClaimedHash manifest.Hash `json:"claimed_hash"`
	ServedHash  manifest.Hash `json:"served_hash"`
	At          time.Time     `json:"at,omitzero"`
}

// Against reports whether the rejection counts against trace t: a file of
// t's author claimed t's hash and served other bytes. A file of another
// agent claiming the same hash says nothing of t's bytes: anyone can copy
// a hash from a public MANIFEST.md into a row of its own.
func (r *Rejection) Against(t *Trace) bool {
	return r.ClaimedHash == t.Hash && r.AgentURL == t.AgentURL
}

// Key is the key of a validation in Ledger.Validations: the URL of the
// agent that published it and the hash of its file, so that each file is
// its own record. A record without a file hash (none is written so; a
// ledger edited by hand may hold one) is keyed by the trace it names.
func (v *Validation) Key() string {
	if v.SourceHash != "" {
		return v.ValidatorURL + " " + string(v.SourceHash)
	}
	return v.ValidatorURL + " trace " + string(v.TraceHash)
}

func (t *Trace) normalized() *Trace {
	c := *t
	c.Submitted, c.FirstSeen = utc(t.Submitted), utc(t.FirstSeen)
	return &c
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Round(0)
}

// Counted is validation.Counted of the record: the result the validation
// counts as, or why it counts for nothing.
func (v *Validation) Counted() (string, error) {
	return (&validation.Validation{TraceHash: v.TraceHash, Result: v.Result, Total: v.Total, Scores: v.Scores, HasScores: v.HasScores}).Counted()
}
