package ledger

import (
	"sort"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// CopyKey is the key of a trace in Ledger.Copies: the URL of the agent
// that listed it and its hash.
func CopyKey(agentURL string, hash manifest.Hash) string {
	return agentURL + " " + string(hash)
}

// AddCopy records t, a file whose bytes another agent's trace in Traces
// already has, as the file of the agent that listed it: one record per
// publisher and hash, so that neither listing hides the other
// (docs/decisions.md, "Copies"). Which of them, if any, earns is SIGNAL's
// to decide. A copy read again merges like AddTrace.
func (l *Ledger) AddCopy(t *Trace) {
	if l.Copies == nil {
		l.Copies = map[string]*Trace{}
	}
	k := CopyKey(t.AgentURL, t.Hash)
	if old := l.Copies[k]; old != nil {
		l.wholeOf(old, old.AgentURL)
	}
	nt := *t
	if old := l.Copies[k]; old != nil {
		mergeTrace(&nt, old)
		l.replaced(old.AgentURL, nt.AgentURL, old, traceTime(old), traceTime(&nt))
	}
	l.touch(nt.AgentURL)
	l.Copies[k] = &nt
}

// SortedCopies returns every copy by agent URL, seq, then hash.
func (l *Ledger) SortedCopies() []*Trace {
	out := make([]*Trace, 0, len(l.Copies))
	for _, t := range l.Copies {
		if t != nil {
			out = append(out, t)
		}
	}
	sortTraces(out)
	return out
}

// CopiesBy returns the copies the agent at agentURL lists, by seq, then
// hash.
func (l *Ledger) CopiesBy(agentURL string) []*Trace {
	var out []*Trace
	for _, t := range l.Copies {
		if t != nil && t.AgentURL == agentURL {
			out = append(out, t)
		}
	}
	sortTraces(out)
	return out
}

// CopiedBy counts the traces the agent at agentURL lists (in Traces or
// Copies) whose bytes another agent lists too.
func (l *Ledger) CopiedBy(agentURL string) int {
	n := 0
	for _, t := range l.Copies {
		if t == nil {
			continue
		}
		if t.AgentURL == agentURL {
			n++
		} else if first := l.Traces[t.Hash]; first != nil && first.AgentURL == agentURL {
			n++
		}
	}
	return n
}

// forgetCopies removes the copies the agent at agentURL listed, and puts
// in Traces, for each trace of that agent removed (removed), the copy
// another agent listed first by URL, so the bytes keep a record.
func (l *Ledger) forgetCopies(agentURL string, removed []manifest.Hash) []manifest.Hash {
	var hashes []manifest.Hash
	for k, t := range l.Copies {
		if t != nil && t.AgentURL == agentURL {
			delete(l.Copies, k)
			hashes = append(hashes, t.Hash)
		}
	}
	gone := map[manifest.Hash]bool{}
	for _, h := range removed {
		gone[h] = true
	}
	for _, t := range l.SortedCopies() {
		if gone[t.Hash] && l.Traces[t.Hash] == nil {
			l.unseal(statefile.PeerFileName(t.AgentURL))
			k := CopyKey(t.AgentURL, t.Hash)
			// Whole, as unseal read it; gone when only a lying summary
			// gave it (repairGroup).
			if t = l.Copies[k]; t == nil {
				continue
			}
			delete(l.Copies, k)
			l.touch(t.AgentURL)
			l.Traces[t.Hash] = t
		}
	}
	return hashes
}

// renameCopies moves the copies listed by the agent at from to the URL to.
func (l *Ledger) renameCopies(from, to string, under func(string) string) {
	for k, t := range l.Copies {
		if t != nil && t.AgentURL == from {
			delete(l.Copies, k)
			nt := *t
			nt.AgentURL, nt.URL = to, under(t.URL)
			l.Copies[CopyKey(nt.AgentURL, nt.Hash)] = &nt
		}
	}
}

func sortTraces(out []*Trace) {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.AgentURL != b.AgentURL {
			return a.AgentURL < b.AgentURL
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.Hash < b.Hash
	})
}

// Promote puts in Traces the copy of hash h that the agent at agentURL
// lists, in place of the record there, which becomes its own lister's
// copy: the record of a hash that its lister withdrew, or disputed as
// its own, gives way to another agent's listing of the same bytes, as Forget's
// does (docs/decisions.md, "Taking a peer's text down"). Both records
// stay, so SIGNAL under rules that judge copies reads the same listings.
// The record given up keeps its mark of withdrawn (TakeDownCopy), and no
// other: whether a dispute takes the bytes down is decided for the
// record in Traces. It reports whether it promoted the copy.
func (l *Ledger) Promote(h manifest.Hash, agentURL string) bool {
	first, k := l.Traces[h], CopyKey(agentURL, h)
	if first == nil || first.AgentURL == agentURL || l.Copies[k] == nil {
		return false
	}
	from := first.AgentURL
	l.unseal(statefile.PeerFileName(agentURL))
	l.unseal(statefile.PeerFileName(from))
	// Whole, as unseal read them; gone when only a lying summary gave
	// them (repairGroup).
	c, first := l.Copies[k], l.Traces[h]
	if c == nil || first == nil {
		return false
	}
	demoted := *first
	if demoted.TakenDown != Withdrawn {
		demoted.TakenDown = ""
	}
	delete(l.Copies, k)
	l.Copies[CopyKey(from, h)] = &demoted
	l.Traces[h] = c
	l.touch(agentURL, from)
	return true
}

// TakeDownCopy marks the copy of hash h that the agent at agentURL lists
// withdrawn (why is Withdrawn) when its lister no longer lists it, or
// published again ("") when it does, and reports whether the ledger holds
// that copy: a copy withdrawn is no listing to promote (Promote). As
// TakeDown, it puts a new record in place of the old.
func (l *Ledger) TakeDownCopy(agentURL string, h manifest.Hash, why string) bool {
	return takeDownIn(l, l.Copies, CopyKey(agentURL, h), why)
}
