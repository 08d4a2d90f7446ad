// Package scoreeval measures a scorer against judgements made by others:
// the verdicts the real mesh's agents published about each other's traces,
// the mesh's curated list, and negatives labelled by hand with reasons
// (labels.json). It reads the traces from the snapshot of the real mesh
// (../shared/corpus/mycel-basecamp) and never copies their text: the
// labels hold agent, seq, sha256, label, reason and source only.
//
// CrossValidate measures the heuristic by stratified k-fold
// cross-validation: on each fold its calibration knobs (score.Params) are
// chosen by a small grid search on the other folds, and the fold is scored
// with them; docs/scoring.md reports the pooled figures.
// The package reads files and runs scorers; it writes nothing.
package scoreeval
