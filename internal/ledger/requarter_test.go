package ledger

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestARecordReplacedByOneOfAnEarlierQuarterLoadsBack: a peer's record
// sealed in one quarter's segment, replaced under its key by a record
// dated in an earlier quarter, which Compact seals in turn: Load reads a
// peer's segments by quarter, so the old record, in the later segment,
// came back in place of its replacement. Now the replacement unseals the
// peer, as a record moving to another peer does, and a fresh Load reads
// the records the ledger holds.
func TestARecordReplacedByOneOfAnEarlierQuarterLoadsBack(t *testing.T) {
	url := "https://a0.example/"
	first, earlier := time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 8, 31, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		add  func(l *Ledger, at time.Time)
	}{
		{"validation", func(l *Ledger, at time.Time) {
			l.AddValidation(&Validation{Validator: "v", ValidatorURL: url, TraceHash: "sha256:00", SourceHash: "sha256:01", ValidatedAt: at})
		}},
		{"dispute", func(l *Ledger, at time.Time) {
			l.AddDispute(&Dispute{Reporter: "r", ReporterURL: url, Agent: "a", AgentURL: "https://b.example/", ClaimedHash: "sha256:02",
				ServedHash: "sha256:03", SourceHash: "sha256:04", ObservedAt: at})
		}},
		{"rejection", func(l *Ledger, at time.Time) {
			l.AddRejection(url+"traces/x.md", &Rejection{Agent: "a", AgentURL: url, ClaimedHash: "sha256:05", ServedHash: "sha256:06", At: at})
		}},
		{"copy", func(l *Ledger, at time.Time) {
			l.AddCopy(&Trace{Agent: "a", AgentURL: url, Seq: 1, Hash: "sha256:07", Submitted: at})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
			l := New()
			c.add(l, first)
			compactEachStepThenLoad(t, l, p, func() {}, func() { c.add(l, earlier) })
		})
	}
}

// TestARenameOverASealedRecordOfAnotherQuarterLoadsBack: a validation
// moved by Rename onto the key of one a segment of the new URL's holds,
// dated in another quarter, and sealed in its turn: the old record came
// back from its segment at Load. Now Rename unseals the new URL's
// records too when it replaces a sealed one.
func TestARenameOverASealedRecordOfAnotherQuarterLoadsBack(t *testing.T) {
	from, to := "https://a1.example/", "https://renamed.example/"
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	l := New()
	add := func(url string, at time.Time) {
		l.AddValidation(&Validation{Validator: "v", ValidatorURL: url, TraceHash: "sha256:00", SourceHash: "sha256:01", ValidatedAt: at})
	}
	add(to, time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC))
	compactEachStepThenLoad(t, l, p,
		func() {},
		func() { add(from, time.Date(2025, 8, 31, 0, 0, 0, 0, time.UTC)) },
		func() { l.Rename(from, to) },
	)
}

// compactEachStepThenLoad runs each step on l, compacting it at the start
// of 2029 and saving it to p after each, then requires a fresh Load of p
// to read the records l holds.
func compactEachStepThenLoad(t *testing.T, l *Ledger, p string, steps ...func()) {
	t.Helper()
	now := time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, step := range steps {
		step()
		compacted(t, l, now)
		if _, err := l.Save(p); err != nil {
			t.Fatal(err)
		}
	}
	fresh, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := whole(t, l), whole(t, fresh); !reflect.DeepEqual(a, b) {
		t.Errorf("the ledger holds\n%v\na fresh Load reads\n%v", a, b)
	}
}
