// Package score judges one trace on the six dimensions of docs/protocol.md §7.2
// (substance, uniqueness, specificity, actionability, structure,
// freshness), each 0–5, through one of three scorers: the built-in
// heuristic, an external command, or a person (manual).
//
// It holds the scorers and the near-duplicate fingerprint. It must not
// fetch, write files or publish anything: the caller hands it verified
// bytes and decides what to do with the result. A scorer never guesses:
// bad output from a command fails the item with the reason.
package score
