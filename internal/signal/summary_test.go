package signal

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
)

// TestSummaryKeepsEveryFieldSignalReads: a record of each kind, with any
// one field changed, sealed into a segment and read back from its
// summary (ledger.LoadCompact, a heartbeat's load) digests as it did,
// and the digests of the pool keys cover every field SIGNAL reads
// (TestPoolKeyCoversEveryFieldSignalReads). A field SIGNAL reads that
// the summary left out fails here.
func TestSummaryKeepsEveryFieldSignalReads(t *testing.T) {
	const url = "https://p.example/"
	for _, kind := range []struct {
		name   string
		record func() any
		put    func(l *ledger.Ledger, r any)
		get    func(l *ledger.Ledger) any
		digest func(r any) poolKey
	}{
		{"trace", func() any { return &ledger.Trace{AgentURL: url} },
			func(l *ledger.Ledger, r any) { l.AddTrace(r.(*ledger.Trace)) },
			func(l *ledger.Ledger) any { return only(l.Traces) },
			func(r any) poolKey { return traceDigest('t', r.(*ledger.Trace)) }},
		{"copy", func() any { return &ledger.Trace{AgentURL: url} },
			func(l *ledger.Ledger, r any) { l.AddCopy(r.(*ledger.Trace)) },
			func(l *ledger.Ledger) any { return only(l.Copies) },
			func(r any) poolKey { return traceDigest('c', r.(*ledger.Trace)) }},
		{"validation", func() any { return &ledger.Validation{ValidatorURL: url} },
			func(l *ledger.Ledger, r any) { l.AddValidation(r.(*ledger.Validation)) },
			func(l *ledger.Ledger) any { return only(l.Validations) },
			func(r any) poolKey { return validationDigest(r.(*ledger.Validation)) }},
		{"dispute", func() any { return &ledger.Dispute{ReporterURL: url} },
			func(l *ledger.Ledger, r any) { l.AddDispute(r.(*ledger.Dispute)) },
			func(l *ledger.Ledger) any { return only(l.Disputes) },
			func(r any) poolKey { return disputeDigest(*r.(*ledger.Dispute)) }},
	} {
		var leaves []leaf
		collectLeaves(t, reflect.ValueOf(kind.record()).Elem(), "", &leaves)
		for i := range leaves {
			r := kind.record()
			var ls []leaf
			collectLeaves(t, reflect.ValueOf(r).Elem(), "", &ls)
			setNonZero(t, ls[i].v, ls[i].path)
			back := throughSummary(t, func(l *ledger.Ledger) { kind.put(l, r) }, kind.get)
			if back == nil {
				t.Errorf("%s with %s set: not read back", kind.name, ls[i].path)
			} else if kind.digest(back) != kind.digest(r) {
				t.Errorf("%s with %s set: read back from its summary as %+v, want %+v", kind.name, ls[i].path, back, r)
			}
		}
	}
}

// only is the one record of m, nil when it holds none.
func only[K comparable, V any](m map[K]*V) any {
	for _, v := range m {
		return v
	}
	return nil
}

// throughSummary records put in a ledger, seals every record, saves it
// and reads it back as a heartbeat does, from the segments' summaries,
// and returns what get takes of it.
func throughSummary(t *testing.T, put func(l *ledger.Ledger), get func(l *ledger.Ledger) any) any {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	l := ledger.New()
	put(l)
	// Every record dated 2026-03-04 or never is past the window by 2027.
	if err := l.Compact(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	back, err := ledger.LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "ledger", "*")); len(files) != 0 {
		t.Fatalf("records left in %v: not sealed", files)
	}
	return get(back)
}
