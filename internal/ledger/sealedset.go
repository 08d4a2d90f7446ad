package ledger

import "fmt"

// recordSet is the set of sealed records, the very pointers of the
// ledger's maps, a map for each type of record. A set keyed by `any`
// takes 16 bytes a key, a type and a pointer, and hashes both: on three
// years of 10,000 agents it held 670,000 records in 31 MB, more than the
// maps of pointers alone (docs/decisions.md, "Memory"). A copy is a
// *Trace, in traces with the traces.
type recordSet struct {
	traces      map[*Trace]struct{}
	validations map[*Validation]struct{}
	rejected    map[*Rejection]struct{}
	disputes    map[*Dispute]struct{}
}

func newRecordSet() recordSet {
	return recordSet{traces: map[*Trace]struct{}{}, validations: map[*Validation]struct{}{},
		rejected: map[*Rejection]struct{}{}, disputes: map[*Dispute]struct{}{}}
}

// add puts rec, a record of one of the ledger's maps, in s.
func (s recordSet) add(rec any) {
	switch r := rec.(type) {
	case *Trace:
		s.traces[r] = struct{}{}
	case *Validation:
		s.validations[r] = struct{}{}
	case *Rejection:
		s.rejected[r] = struct{}{}
	case *Dispute:
		s.disputes[r] = struct{}{}
	default:
		unknownRecord(rec)
	}
}

// remove takes rec out of s.
func (s recordSet) remove(rec any) {
	switch r := rec.(type) {
	case *Trace:
		delete(s.traces, r)
	case *Validation:
		delete(s.validations, r)
	case *Rejection:
		delete(s.rejected, r)
	case *Dispute:
		delete(s.disputes, r)
	default:
		unknownRecord(rec)
	}
}

// has reports whether rec is in s.
func (s recordSet) has(rec any) bool {
	var ok bool
	switch r := rec.(type) {
	case *Trace:
		_, ok = s.traces[r]
	case *Validation:
		_, ok = s.validations[r]
	case *Rejection:
		_, ok = s.rejected[r]
	case *Dispute:
		_, ok = s.disputes[r]
	default:
		unknownRecord(rec)
	}
	return ok
}

// unknownRecord stops on a record of a type recordSet has no set for: a
// new kind of record added to the ledger (Ledger.each) without its set
// here would otherwise go unsealed, silently, and be saved in its peer's
// file as well as in its segment. It is a mistake in this package, never
// something input can cause: each record each yields is of a type above.
func unknownRecord(rec any) {
	panic(fmt.Sprintf("ledger: recordSet holds no record of type %T", rec))
}
