package signal

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// Extend is the report over in with the records added among its traces,
// made from r, the report ComputeKeeping(in, keep) gave, without computing
// again: what a heartbeat that publishes a trace of ours reads of SIGNAL
// over its planned rows. ok is false, and the caller must compute again,
// unless the rule of docs/decisions.md ("Our new rows' statuses") shows
// that the records change nothing but add their own results, each that of
// a trace nobody voted on:
//
//   - the rule set assigns no juries (Rules.JurySize 0): a new trace's
//     result names its jury, which the report cannot give, and it may
//     change who is away and so other traces' late reserves;
//   - each record has a hash and a name, carries no verdict, and its hash
//     is no other record's: no listing of in (copies too where the rules
//     read them), no other added record, no validation's trace hash;
//   - r already holds its author, under the name and URL the record gives
//     (so no agent, name or URL of the mesh changes);
//   - no verdict of in names its author by name with its seq or its file
//     number (verdictVotes would resolve it to the new trace);
//   - where mismatches cost standing, no dispute of in names its author
//     (a new seq moves the MismatchWindow of its author's disputes).
func Extend(in Input, r Report, added []*ledger.Trace, keep func(*ledger.Trace) bool) (Report, bool) {
	rules, known := RulesNamed(cmp.Or(in.Rules, DefaultRules))
	if !known || rules.Name != r.Rules || rules.JurySize > 0 {
		return Report{}, false
	}
	if len(added) == 0 {
		return r, true
	}
	if !addable(in, rules, r, added) {
		return Report{}, false
	}
	return withUnvoted(r, added, keep), true
}

// withUnvoted is r with the result of each record added that keep
// accepts (nil: all), as a trace nobody voted on gets it.
func withUnvoted(r Report, added []*ledger.Trace, keep func(*ledger.Trace) bool) Report {
	r.Traces = slices.Clone(r.Traces)
	for _, t := range added {
		if keep == nil || keep(t) {
			r.Traces = insertResult(r.Traces, unvoted(t))
		}
	}
	return r
}

// addable reports whether the records added to in can change nothing of
// r but add their own results (Extend's rule).
func addable(in Input, rules Rules, r Report, added []*ledger.Trace) bool {
	hashes := make(map[manifest.Hash]bool, len(added))
	for _, t := range added {
		if t.Hash == "" || strings.TrimSpace(t.Agent) == "" || len(t.Verdicts) > 0 || hashes[t.Hash] || !holdsAuthor(r, t) {
			return false
		}
		hashes[t.Hash] = true
	}
	listings := [][]*ledger.Trace{in.Traces}
	if rules.CopiesEarnNothing {
		listings = append(listings, in.Copies)
	}
	if listsAny(listings, hashes) || slices.ContainsFunc(in.Validations, func(v *ledger.Validation) bool { return hashes[v.TraceHash] }) {
		return false
	}
	for _, t := range added {
		if namedByVerdict(listings, t) || (rules.LoseAtMismatches > 0 && disputesAuthor(in.Disputes, t)) {
			return false
		}
	}
	return true
}

// holdsAuthor reports whether r has t's author under the name and URL t
// gives: the name and URL the mesh learns first of an agent stay its own
// whichever of its listings comes first.
func holdsAuthor(r Report, t *ledger.Trace) bool {
	name := strings.TrimSpace(t.Agent)
	return slices.ContainsFunc(r.Agents, func(a Agent) bool { return a.Agent == name && a.URL == t.AgentURL })
}

// listsAny reports whether a record of the listings has one of hashes.
func listsAny(listings [][]*ledger.Trace, hashes map[manifest.Hash]bool) bool {
	for _, l := range listings {
		if slices.ContainsFunc(l, func(t *ledger.Trace) bool { return hashes[t.Hash] }) {
			return true
		}
	}
	return false
}

// namedByVerdict reports whether a verdict of the listings names t's
// author by name (as targets.resolve reads it) with t's seq or file
// number.
func namedByVerdict(listings [][]*ledger.Trace, t *ledger.Trace) bool {
	name := strings.ToLower(strings.TrimSpace(t.Agent))
	file, numbered := fileNumber(t.File)
	for _, l := range listings {
		for _, lt := range l {
			for _, v := range lt.Verdicts {
				if strings.ToLower(v.Agent) == name && (v.Seq == int(t.Seq) || (numbered && v.Seq == file)) {
					return true
				}
			}
		}
	}
	return false
}

// disputesAuthor reports whether a dispute may be of t's author: by its
// agent key, or by its name (agentNames.disputed).
func disputesAuthor(ds []ledger.Dispute, t *ledger.Trace) bool {
	k, name := agentKey(t.Agent, t.AgentURL), strings.ToLower(strings.TrimSpace(t.Agent))
	return slices.ContainsFunc(ds, func(d ledger.Dispute) bool {
		return agentKey(d.Agent, d.AgentURL) == k || strings.ToLower(strings.TrimSpace(d.Agent)) == name
	})
}

// unvoted is the result of t when no vote names it, under rules that
// assign no jury.
func unvoted(t *ledger.Trace) TraceResult {
	return TraceResult{Hash: t.Hash, Agent: strings.TrimSpace(t.Agent), URL: t.URL, Seq: t.Seq, Status: manifest.StatusPending}
}

// insertResult puts res among rs in the report's order: by agent name
// (case-insensitive), seq, hash and URL (sortedResults).
func insertResult(rs []TraceResult, res TraceResult) []TraceResult {
	i, _ := slices.BinarySearchFunc(rs, res, func(a, b TraceResult) int {
		if c := strings.Compare(strings.ToLower(a.Agent), strings.ToLower(b.Agent)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Hash), string(b.Hash)); c != 0 {
			return c
		}
		return strings.Compare(a.URL, b.URL)
	})
	return slices.Insert(rs, i, res)
}

// AddedTraces is the records of our traces that rows after lists and rows
// before does not, as FromRows makes them; ok is false unless every
// record of before is in after unchanged and after lists each hash once,
// so that FromRows over after is FromRows over before with added among
// its traces (and, for Extend, nothing else).
func AddedTraces(s *node.Snapshot, before, after []manifest.Entry, agent, url string) (added []*ledger.Trace, ok bool) {
	was := map[manifest.Hash]*ledger.Trace{}
	for _, t := range ownTraces(s, before, agent, url) {
		if was[t.Hash] != nil {
			return nil, false
		}
		was[t.Hash] = t
	}
	seen := map[manifest.Hash]bool{}
	for _, t := range ownTraces(s, after, agent, url) {
		if seen[t.Hash] {
			return nil, false
		}
		seen[t.Hash] = true
		old, listed := was[t.Hash]
		switch {
		case !listed:
			added = append(added, t)
		case !reflect.DeepEqual(old, t):
			return nil, false
		}
	}
	return added, len(seen) == len(was)+len(added)
}
