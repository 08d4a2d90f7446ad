package score

// Params are the heuristic's calibration knobs: the thresholds that were
// set by judgement and are chosen by cross-validation against the mesh's
// own judges (docs/scoring.md). DefaultParams are the shipped values; the
// fixed rules (ThinWords, the pass mark, the 0–5 range) are not knobs.
type Params struct {
	// SubstanceWords are the body word counts (prose and code) that earn
	// substance 1–5: a line, a paragraph, a short note, a page, a long
	// report. The first is ThinWords.
	SubstanceWords [5]int
	// EvidenceNumbers is how many distinct figures an Evidence section
	// needs before it counts as measured evidence rather than a list of
	// links.
	EvidenceNumbers int
	// DataNumbers is how many distinct figures make a trace carry its own
	// data, the mark of original work rather than restated opinion.
	DataNumbers int
	// MeasuredNumbers is how many distinct figures, next to code, commands
	// or a table, read as first-hand measurement.
	MeasuredNumbers int
	// ManyNumbers is how many distinct figures earn specificity's second
	// point.
	ManyNumbers int
	// WorkedExamples is how many code blocks, and ManyCommands how many
	// command lines, make a trace a set of examples to copy.
	WorkedExamples, ManyCommands int
	// ShortWords and BriefWords cap uniqueness at 2 and 3: a short note
	// can only be so original, however new its one claim.
	ShortWords, BriefWords int
	// NearCopyDistance is the simhash Hamming distance (of 64 bits) at or
	// under which two bodies are the same text with small edits (one
	// changed word in a 200-word body moves about 4 bits);
	// SimilarDistance the distance under which they share most of their
	// text (unrelated texts sit around 32).
	NearCopyDistance, SimilarDistance int
}

// DefaultParams are the knobs the heuristic ships with: the values the
// cross-validation's grid search chooses on all the labels
// (docs/scoring.md, go run ./bench/scoreeval --cv).
var DefaultParams = Params{
	SubstanceWords:   [5]int{ThinWords, 150, 300, 600, 1000},
	EvidenceNumbers:  5,
	DataNumbers:      8,
	MeasuredNumbers:  12,
	ManyNumbers:      12,
	WorkedExamples:   3,
	ManyCommands:     6,
	ShortWords:       120,
	BriefWords:       250,
	NearCopyDistance: 6,
	SimilarDistance:  12,
}

// params returns the knobs h scores with.
func (h Heuristic) params() *Params {
	if h.Params != nil {
		return h.Params
	}
	return &DefaultParams
}
