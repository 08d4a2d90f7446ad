// Package source is the seam for where a peer's entries come from: its
// MANIFEST.md today (heartbeat's manifest source), a signed log or a
// mirror next. The heartbeat consumes a Source; everything after it
// (the plan against the cursor, the budgets, fetching each file and
// verifying it through internal/integrity, the ledger) is the same
// whatever the source, so a new source is one new package and the line
// that chooses it.
//
// It holds only the interface and its values; it must not fetch or parse.
package source
