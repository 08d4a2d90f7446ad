package ledger

import (
	"slices"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// AddTrace records t by its hash. A trace already known keeps its first-seen
// time and stays verified once verified; fields the new record leaves empty
// keep their old values, and the rest (a status that moved from pending to
// validated, say) take the new ones.
func (l *Ledger) AddTrace(t *Trace) {
	if l.Traces == nil {
		l.Traces = map[manifest.Hash]*Trace{}
	}
	if old := l.Traces[t.Hash]; old != nil {
		l.wholeOf(old, old.AgentURL)
	}
	old := l.Traces[t.Hash]
	nt := *t
	if old != nil {
		mergeTrace(&nt, old)
		l.touch(old.AgentURL)
		l.replaced(old.AgentURL, nt.AgentURL, old, traceTime(old), traceTime(&nt))
	}
	l.touch(nt.AgentURL)
	l.Traces[t.Hash] = &nt
}

func mergeTrace(nt, old *Trace) {
	if !old.FirstSeen.IsZero() {
		nt.FirstSeen = old.FirstSeen
	}
	nt.Verified = nt.Verified || old.Verified
	for _, f := range []struct{ dst, src *string }{
		{&nt.Agent, &old.Agent}, {&nt.AgentURL, &old.AgentURL}, {&nt.File, &old.File}, {&nt.URL, &old.URL},
		{&nt.Type, &old.Type}, {&nt.Category, &old.Category}, {&nt.Title, &old.Title},
	} {
		if *f.dst == "" {
			*f.dst = *f.src
		}
	}
	if nt.Status == "" {
		nt.Status = old.Status
	}
	if nt.Fingerprint == 0 {
		nt.Fingerprint = old.Fingerprint
	}
	if nt.Submitted.IsZero() {
		nt.Submitted = old.Submitted
	}
	if nt.Cites == nil {
		nt.Cites = old.Cites
	}
	if nt.Verdicts == nil {
		nt.Verdicts = old.Verdicts
	}
}

// AddValidation records v as the validation file it was read from: one
// record per publisher and file hash (Validation.Key), so that every file
// a peer published is its own record and two files never share a key by
// a field they both lack. Reading the same file again replaces its record.
// Which of a validator's files on one trace counts is SIGNAL's to decide
// (docs/decisions.md, "Validations that count").
func (l *Ledger) AddValidation(v *Validation) {
	if l.Validations == nil {
		l.Validations = map[string]*Validation{}
	}
	nv := *v
	if old := l.Validations[nv.Key()]; old != nil {
		l.touch(old.ValidatorURL)
		l.replaced(old.ValidatorURL, nv.ValidatorURL, old, validationTime(old), validationTime(&nv))
	}
	l.touch(nv.ValidatorURL)
	l.Validations[nv.Key()] = &nv
}

// AddRejection records a hash mismatch of the file at fileURL; a later
// mismatch of the same file replaces the earlier one.
func (l *Ledger) AddRejection(fileURL string, r *Rejection) {
	if l.Rejected == nil {
		l.Rejected = map[string]*Rejection{}
	}
	nr := *r
	if old := l.Rejected[fileURL]; old != nil {
		l.touch(old.AgentURL)
		l.replaced(old.AgentURL, nr.AgentURL, old, old.At, nr.At)
	}
	l.touch(nr.AgentURL)
	l.Rejected[fileURL] = &nr
}

// SortedTraces returns every trace by agent URL, seq, then hash.
func (l *Ledger) SortedTraces() []*Trace {
	return l.traces(func(*Trace) bool { return true })
}

// SortedTracesOf returns the traces whose hash is in hashes, in
// SortedTraces' order: the few it keeps sorted, not every trace.
func (l *Ledger) SortedTracesOf(hashes map[manifest.Hash]bool) []*Trace {
	return l.traces(func(t *Trace) bool { return hashes[t.Hash] })
}

// TracesBy returns the traces of the agent at agentURL by seq, then hash.
func (l *Ledger) TracesBy(agentURL string) []*Trace {
	return l.traces(func(t *Trace) bool { return t.AgentURL == agentURL })
}

func (l *Ledger) traces(keep func(*Trace) bool) []*Trace {
	var out []*Trace
	for _, t := range l.Traces {
		if keep(t) {
			out = append(out, t)
		}
	}
	sortTraces(out)
	return out
}

// ValidationsOf returns the validations of the trace with this hash, by
// validator URL, then file hash.
func (l *Ledger) ValidationsOf(traceHash manifest.Hash) []*Validation {
	return l.validations(func(v *Validation) bool { return v.TraceHash == traceHash })
}

// ValidationsBy returns the validations published by the validator at
// validatorURL, by trace hash, then file hash.
func (l *Ledger) ValidationsBy(validatorURL string) []*Validation {
	return l.validations(func(v *Validation) bool { return v.ValidatorURL == validatorURL })
}

func (l *Ledger) validations(keep func(*Validation) bool) []*Validation {
	var out []*Validation
	for _, v := range l.Validations {
		if keep(v) {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ValidatorURL != b.ValidatorURL {
			return a.ValidatorURL < b.ValidatorURL
		}
		if a.TraceHash != b.TraceHash {
			return a.TraceHash < b.TraceHash
		}
		return a.SourceHash < b.SourceHash
	})
	return out
}

// Forget removes every trace, copy, validation, rejection and dispute the
// agent at agentURL published, and returns the hashes of the files
// removed, sorted, so the caller can fetch them again under their rightful
// agent. The node calls it when a name that URL held was bound elsewhere by
// a person (docs/decisions.md, "Names").
func (l *Ledger) Forget(agentURL string) []manifest.Hash {
	l.touch(agentURL)
	l.unseal(statefile.PeerFileName(agentURL))
	var hashes []manifest.Hash
	for h, t := range l.Traces {
		if t != nil && t.AgentURL == agentURL {
			delete(l.Traces, h)
			hashes = append(hashes, h)
		}
	}
	for k, v := range l.Validations {
		if v != nil && v.ValidatorURL == agentURL {
			delete(l.Validations, k)
			if v.SourceHash != "" {
				hashes = append(hashes, v.SourceHash)
			}
		}
	}
	for k, r := range l.Rejected {
		if r != nil && r.AgentURL == agentURL {
			delete(l.Rejected, k)
		}
	}
	for k, d := range l.Disputes {
		if d != nil && d.ReporterURL == agentURL {
			delete(l.Disputes, k)
			if d.SourceHash != "" {
				hashes = append(hashes, d.SourceHash)
			}
		}
	}
	hashes = append(hashes, l.forgetCopies(agentURL, hashes)...)
	slices.Sort(hashes)
	return hashes
}

// Rename moves what the ledger holds of the agent at from (its traces,
// the validations and disputes it published and its rejections) to the URL to, the
// same agent spelled another way; file URLs under from move under to.
// Each record moved is a new one, as every change of the ledger's makes:
// a reader holding the old (signal.Input) keeps reading it as it was.
func (l *Ledger) Rename(from, to string) {
	l.touch(from, to)
	l.unseal(statefile.PeerFileName(from))
	under := func(u string) string {
		if rest, ok := strings.CutPrefix(u, from); ok {
			return to + rest
		}
		return u
	}
	if l.renameReplacesSealed(from, to, under) {
		// A record moved replaces one a segment of to's holds, maybe of
		// another quarter, which Load would read in its place (replaced).
		l.unseal(statefile.PeerFileName(to))
	}
	for k, t := range l.Traces {
		if t != nil && t.AgentURL == from {
			nt := *t
			nt.AgentURL, nt.URL = to, under(t.URL)
			l.Traces[k] = &nt
		}
	}
	for k, v := range l.Validations {
		if v != nil && v.ValidatorURL == from {
			delete(l.Validations, k)
			nv := *v
			nv.ValidatorURL, nv.SourceURL = to, under(v.SourceURL)
			l.Validations[nv.Key()] = &nv
		}
	}
	for k, r := range l.Rejected {
		if r != nil && r.AgentURL == from {
			delete(l.Rejected, k)
			nr := *r
			nr.AgentURL = to
			l.Rejected[under(k)] = &nr
		}
	}
	for k, d := range l.Disputes {
		if d != nil && d.ReporterURL == from {
			delete(l.Disputes, k)
			nd := *d
			nd.ReporterURL, nd.SourceURL = to, under(d.SourceURL)
			l.Disputes[nd.Key()] = &nd
		}
	}
	l.renameCopies(from, to, under)
}

// renameReplacesSealed reports whether a record Rename moves from from to
// to takes the key of a record a segment holds: a validation, rejection,
// dispute or copy of to's under the same key (a trace keeps its key, the
// hash, and from is unsealed).
func (l *Ledger) renameReplacesSealed(from, to string, under func(string) string) bool {
	if l.seal == nil {
		return false
	}
	sealed := func(rec any, ok bool) bool { return ok && l.seal.holds(rec) }
	for _, v := range l.Validations {
		if v != nil && v.ValidatorURL == from {
			nv := *v
			nv.ValidatorURL = to
			if old, ok := l.Validations[nv.Key()]; sealed(old, ok) {
				return true
			}
		}
	}
	for k, r := range l.Rejected {
		if old, ok := l.Rejected[under(k)]; r != nil && r.AgentURL == from && sealed(old, ok) {
			return true
		}
	}
	for _, d := range l.Disputes {
		if d != nil && d.ReporterURL == from {
			nd := *d
			nd.ReporterURL = to
			if old, ok := l.Disputes[nd.Key()]; sealed(old, ok) {
				return true
			}
		}
	}
	for _, c := range l.Copies {
		if old, ok := l.Copies[CopyKey(to, c.Hash)]; c != nil && c.AgentURL == from && sealed(old, ok) {
			return true
		}
	}
	return false
}

// TakeDown sets why the node no longer republishes the text of the trace
// with hash h (Trace.TakenDown; "" publishes it again), and reports
// whether the ledger holds that trace. Records change only through the
// ledger's methods, so that Save rewrites the file that holds it.
func (l *Ledger) TakeDown(h manifest.Hash, why string) bool {
	return takeDownIn(l, l.Traces, h, why)
}

// takeDownIn sets why the record under k in m, a map of l's records,
// is taken down, and reports whether m holds one: a new record in place
// of the old, read whole first (TakeDown, TakeDownCopy).
func takeDownIn[K comparable](l *Ledger, m map[K]*Trace, k K, why string) bool {
	t := m[k]
	if t == nil {
		return false
	}
	if t.TakenDown != why {
		l.wholeOf(t, t.AgentURL)
		// Read whole, a record only a lying summary gave is gone
		// (repairGroup).
		if t = m[k]; t == nil {
			return false
		}
		// A new record, not a change of this one: a sealed record stays as
		// its segment holds it, and the new one goes to its peer's file.
		nt := *t
		nt.TakenDown = why
		m[k] = &nt
		l.touch(t.AgentURL)
	}
	return true
}
