package ledger

import (
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// unsealedIndex is what a loaded ledger knows, without a pass over its
// records, of those no segment holds, so that Compact passes over every
// record only when one may be due (docs/decisions.md, "Compact follows
// what changed"): by peer file name, the quarters (by quarterIndex, with
// a time in each) of the records its peers' files held when Load read
// them, and the files whose records changed since, of which it knows
// nothing. It is conservative: a record sealed or forgotten since leaves
// its quarter noted, which costs Compact a pass, never a record, until a
// Compact's whole pass notes afresh what it left unsealed (renote).
type unsealedIndex struct {
	quarters map[string]map[int]time.Time
	changed  map[string]bool
	names    map[string]string // URL → file name while Load reads
}

func newUnsealedIndex() *unsealedIndex {
	return &unsealedIndex{quarters: map[string]map[int]time.Time{}, changed: map[string]bool{}, names: map[string]string{}}
}

// note notes the quarters of the records of in, a peer's file Load read,
// under the file name each record is filed by.
func (x *unsealedIndex) note(in *Ledger) {
	for _, t := range in.Traces {
		if t != nil {
			x.noteRecord(t.AgentURL, traceTime(t))
		}
	}
	for _, v := range in.Validations {
		if v != nil {
			x.noteRecord(v.ValidatorURL, validationTime(v))
		}
	}
	for _, r := range in.Rejected {
		if r != nil {
			x.noteRecord(r.AgentURL, r.At)
		}
	}
	for _, d := range in.Disputes {
		if d != nil {
			x.noteRecord(d.ReporterURL, disputeTime(d))
		}
	}
	for _, t := range in.Copies {
		if t != nil {
			x.noteRecord(t.AgentURL, traceTime(t))
		}
	}
}

func (x *unsealedIndex) noteRecord(url string, at time.Time) {
	name, ok := x.names[url]
	if !ok {
		name = statefile.PeerFileName(url)
		if x.names != nil {
			x.names[url] = name
		}
	}
	noteQuarter(x.quarters, name, at)
}

// noteQuarter notes at's quarter under peer file name in quarters, with
// at as its time unless one is noted already.
func noteQuarter(quarters map[string]map[int]time.Time, name string, at time.Time) {
	qs := quarters[name]
	if qs == nil {
		qs = map[int]time.Time{}
		quarters[name] = qs
	}
	qi := quarterIndex(at)
	if _, ok := qs[qi]; !ok {
		qs[qi] = at
	}
}

// renote replaces what the index knows by what a whole Compact pass that
// sealed its batch found: the quarters of the records it left for being
// too recent, and no file changed since. Every other record is sealed,
// or lies in a quarter its peer sealed, which only unseal takes back, and
// unseal notes its file changed. So the notes of a quarter sealed, or of
// a peer forgotten or renamed, go, and a ledger kept open across many
// Compacts and Saves neither holds more and more of them nor passes over
// every record at each Compact once one file changed.
func (x *unsealedIndex) renote(recent map[string]map[int]time.Time) {
	x.quarters = recent
	clear(x.changed)
}

// fileChanged notes that the records of peer file name changed: Save
// writes its file again, and Compact no longer knows what it holds.
func (l *Ledger) fileChanged(name string) {
	if l.changed != nil {
		l.changed[name] = true
	}
	if l.unsealed != nil {
		l.unsealed.changed[name] = true
	}
}

// mayBeDue reports whether Compact at now may seal a record: false only
// when the ledger knows every unsealed record's quarter (unsealedIndex)
// and each that ended Window before now is sealed by its peer, so that
// compactBatch would find nothing.
func (l *Ledger) mayBeDue(now time.Time) bool {
	x := l.unsealed
	if x == nil || len(x.changed) > 0 {
		return true
	}
	// A time is before the quarter start cut exactly when its quarter
	// number is below cut's, as compaction.add asks of each record.
	cut := quarterIndex(quarterStartOf(now.Add(-Window)))
	for name, qs := range x.quarters {
		ps := l.seal.peer(name)
		for qi, at := range qs {
			if qi < cut && (ps == nil || !ps.quarters[quarter(at)]) {
				return true
			}
		}
	}
	return false
}
