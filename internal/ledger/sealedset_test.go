package ledger

import "testing"

// TestRecordSetHoldsThePointersItWasGiven checks the sealing index by
// type: a record is held from add to remove, by its pointer, so an equal
// record elsewhere (a peer's file's twin) is not, and a copy, a *Trace,
// is held as a trace is.
func TestRecordSetHoldsThePointersItWasGiven(t *testing.T) {
	recs := []struct {
		name      string
		rec, twin any
	}{
		{"trace", &Trace{Hash: "sha256:01"}, &Trace{Hash: "sha256:01"}},
		{"validation", &Validation{ValidatorURL: "https://a.example/"}, &Validation{ValidatorURL: "https://a.example/"}},
		{"rejection", &Rejection{AgentURL: "https://a.example/"}, &Rejection{AgentURL: "https://a.example/"}},
		{"dispute", &Dispute{ReporterURL: "https://a.example/"}, &Dispute{ReporterURL: "https://a.example/"}},
	}
	for _, r := range recs {
		t.Run(r.name, func(t *testing.T) {
			s := newRecordSet()
			if s.has(r.rec) {
				t.Fatal("an empty set holds the record")
			}
			s.add(r.rec)
			if !s.has(r.rec) {
				t.Fatal("the record added is not held")
			}
			if s.has(r.twin) {
				t.Fatal("an equal record at another pointer is held")
			}
			s.remove(r.rec)
			if s.has(r.rec) {
				t.Fatal("the record removed is still held")
			}
		})
	}
	s := newRecordSet()
	if s.has("sha256:01") || s.has(nil) {
		t.Fatal("a value that is no record is held")
	}
}
