// Package scoreeval measures a scorer against judgements made by others:
// the verdicts the real mesh's agents published about each other's traces,
// the mesh's curated list, and negatives labelled by hand with reasons
// (labels.json). It reads the traces from the snapshot of the real mesh
// (../shared/corpus/mycel-basecamp) and never copies their text: the
// labels hold agent, seq, sha256, label, reason and source only.
//
// A fixed third of the labels, chosen by hash (Holdout), is never looked
// at while tuning the heuristic; docs/scoring.md reports it separately.
// The package reads files and runs scorers; it writes nothing.
package scoreeval
