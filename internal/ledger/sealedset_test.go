package ledger

import (
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"testing"
)

// Every kind of record the ledger holds (each yields them all) has its
// set: added, it is held; removed, it is not.
func TestRecordSetHoldsEveryKindOfRecord(t *testing.T) {
	l := &Ledger{
		Traces:      map[manifest.Hash]*Trace{"h1": {Hash: "h1"}},
		Validations: map[string]*Validation{"v": {}},
		Rejected:    map[string]*Rejection{"r": {}},
		Disputes:    map[string]*Dispute{"d": {}},
		Copies:      map[string]*Trace{"c": {Hash: "h2"}},
	}
	s := newRecordSet()
	n := 0
	l.each(func(rec any) {
		n++
		s.add(rec)
		if !s.has(rec) {
			t.Errorf("%T added, not held", rec)
		}
		s.remove(rec)
		if s.has(rec) {
			t.Errorf("%T removed, still held", rec)
		}
	})
	if n != 5 {
		t.Errorf("each yielded %d records, want one of each of the 5 maps", n)
	}
}

// A record of a type the set does not know stops the program rather
// than go unsealed: it can only be a new kind added to the ledger
// without its set.
func TestRecordSetRefusesAKindItHasNoSetFor(t *testing.T) {
	for name, f := range map[string]func(recordSet){
		"add":    func(s recordSet) { s.add(&struct{}{}) },
		"remove": func(s recordSet) { s.remove(&struct{}{}) },
		"has":    func(s recordSet) { s.has(&struct{}{}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "*struct {}") {
					t.Errorf("%s of an unknown record: recovered %v, want a panic naming its type", name, r)
				}
			}()
			f(newRecordSet())
		}()
	}
}
