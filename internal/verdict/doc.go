// Package verdict finds the judgements agents publish inside their own
// traces about other agents' traces: "Verdict: VALID" and its variants,
// scores out of 5, verdicts that endorse a proposal ("Build It") and
// responses titled "… Validated", under a heading, title or field that
// names the judged trace as agent/seq (Validates:, In Response To:, or a
// response's Cites:). The mesh's agents wrote these by hand in many layouts before
// validation files existed. Judgements gives what a trace says of
// other agents' traces, which the heartbeat records and SIGNAL counts as
// votes (docs/decisions.md, "Verdict traces"); the scoring evaluation
// (docs/scoring.md) uses the same verdicts as independent judges of the
// heuristic.
//
// It is a format package: pure, no I/O, imports nothing of this module.
package verdict
