package ledger

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

const bolt = "https://bolt.example/traces/"

func TestSaveRewritesOnlyTheFilesWhoseRecordsChanged(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	if _, err := sample().Save(p); err != nil {
		t.Fatal(err)
	}
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	// axon's records, rewritten compact behind the ledger's back: a Save
	// that re-encodes them would put them back in the canonical form.
	axonKey := statefile.PeerFileName(axon)
	compact := compactJSON(t, p, axonKey)
	if changed, err := l.Save(p); err != nil || changed {
		t.Fatalf("save of an unchanged ledger: changed=%v err=%v", changed, err)
	}
	l.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 44, Hash: "sha256:ee", FirstSeen: day2})
	if changed, err := l.Save(p); err != nil || !changed {
		t.Fatalf("save after a new trace: changed=%v err=%v", changed, err)
	}
	if got, _ := statefile.ReadOne(p, axonKey); string(got) != string(compact) {
		t.Errorf("a file whose records did not change was rewritten:\n%s", got)
	}
	back, err := Load(p)
	if err != nil || back.Traces["sha256:ee"] == nil {
		t.Fatalf("the new trace did not reach the disk: %v", err)
	}
}

// compactJSON rewrites the JSON contents of key in the split state at p
// without indentation and returns its new bytes.
func compactJSON(t *testing.T, p, key string) []byte {
	t.Helper()
	data, err := statefile.ReadOne(p, key)
	if err != nil || data == nil {
		t.Fatalf("%s: %q, %v", key, data, err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	if _, err := statefile.WriteSome(p, map[string][]byte{key: out}, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// change is one change of the ledger's, for tests that try each.
type change struct {
	name   string
	change func(l *Ledger)
}

// eachChange is every kind of change a ledger's methods make, on sample()
// with bolt's copy of jolt's trace.
func eachChange() []change {
	return []change{
		{"trace of a new peer", func(l *Ledger) { l.AddTrace(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 1, Hash: "sha256:01"}) }},
		{"trace that moves to another agent", func(l *Ledger) { l.AddTrace(&Trace{Agent: "bolt", AgentURL: bolt, Hash: "sha256:aa"}) }},
		{"validation", func(l *Ledger) {
			l.AddValidation(&Validation{Validator: "bolt", ValidatorURL: bolt, TraceHash: "sha256:bb", Result: "fail", SourceHash: "sha256:v1"})
		}},
		{"rejection", func(l *Ledger) {
			l.AddRejection(bolt+"traces/x.md", &Rejection{Agent: "bolt", AgentURL: bolt, ClaimedHash: "sha256:c1", ServedHash: "sha256:d1", At: day2})
		}},
		{"forget a peer", func(l *Ledger) { l.Forget(axon) }},
		{"rename a peer", func(l *Ledger) { l.Rename(jolt, bolt) }},
		{"nothing", func(*Ledger) {}},
		{"copy", func(l *Ledger) { l.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 3, Hash: "sha256:bb"}) }},
		{"dispute", func(l *Ledger) {
			l.AddDispute(&Dispute{Reporter: "bolt", ReporterURL: bolt, Agent: "jolt37", AgentURL: jolt, Seq: 43, ClaimedHash: "sha256:cc", ServedHash: "sha256:dd", SourceHash: "sha256:d9"})
		}},
		{"take a trace down", func(l *Ledger) { l.TakeDown("sha256:bb", Withdrawn) }},
		{"forget a peer whose trace another lists", func(l *Ledger) { l.Forget(jolt) }},
	}
}

func TestSaveOfEachChangeWritesWhatAFullSaveWould(t *testing.T) {
	for _, tc := range eachChange() {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "ledger.json")
			before := sample()
			// bolt's copy of jolt's trace is on disk before the change:
			// forgetting jolt moves it into bolt's traces.
			before.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 2, Hash: "sha256:bb"})
			if _, err := before.Save(p); err != nil {
				t.Fatal(err)
			}
			l, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(l)
			if _, err := l.Save(p); err != nil {
				t.Fatal(err)
			}
			want, err := l.Files()
			if err != nil {
				t.Fatal(err)
			}
			_, got, err := statefile.Read(p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(stringsOf(got), stringsOf(want)) {
				t.Errorf("on disk:\n%v\nwant what a full save writes:\n%v", stringsOf(got), stringsOf(want))
			}
		})
	}
}

func stringsOf(files map[string][]byte) map[string]string {
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = string(v)
	}
	return out
}

// TestNoChangeAltersARecordInPlace: every change puts new records in
// place of those it changes, and leaves each record it held as it was, so
// that a reader holding a record (signal.Input, which points at the
// ledger's records) keeps reading what it read.
func TestNoChangeAltersARecordInPlace(t *testing.T) {
	for _, tc := range eachChange() {
		t.Run(tc.name, func(t *testing.T) {
			l := sample()
			l.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 2, Hash: "sha256:bb"})
			l.AddDispute(&Dispute{Reporter: "jolt37", ReporterURL: jolt, Agent: "axon37", AgentURL: axon, Seq: 1, ClaimedHash: "sha256:ee", ServedHash: "sha256:ff", SourceHash: "sha256:d1"})
			held := map[any]any{}
			for _, t := range l.Traces {
				held[t] = *t
			}
			for _, t := range l.Copies {
				held[t] = *t
			}
			for _, v := range l.Validations {
				held[v] = *v
			}
			for _, r := range l.Rejected {
				held[r] = *r
			}
			for _, d := range l.Disputes {
				held[d] = *d
			}
			tc.change(l)
			for p, was := range held {
				var now any
				switch r := p.(type) {
				case *Trace:
					now = *r
				case *Validation:
					now = *r
				case *Rejection:
					now = *r
				case *Dispute:
					now = *r
				}
				if !reflect.DeepEqual(now, was) {
					t.Errorf("a record changed in place:\nwas %+v\nnow %+v", was, now)
				}
			}
		})
	}
}

// TestSaveOfAnUnchangedLoadedLedgerPassesOverNoRecord: Save of a loaded
// ledger of which nothing changed does not pass over its records to find
// their files: its allocations do not grow with the records.
func TestSaveOfAnUnchangedLoadedLedgerPassesOverNoRecord(t *testing.T) {
	now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC)
	_, _, small := unchangedCosts(t, 4, now)
	_, _, large := unchangedCosts(t, 40, now)
	if large != small {
		t.Errorf("Save of a ledger of which nothing changed: %v allocations for 40 agents, %v for 4: it passes over the records", large, small)
	}
}

// unchangedCosts is a two-year ledger of agents compacted at now, saved
// and loaded through its summaries, with the allocations of a Compact at
// now and of a Save, neither with anything to do.
func unchangedCosts(t *testing.T, agents int, now time.Time) (*Ledger, float64, float64) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	l := yearOf(agents, 2*365, now)
	compacted(t, l, now)
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	l, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	compact := testing.AllocsPerRun(3, func() { compacted(t, l, now) })
	save := testing.AllocsPerRun(3, func() {
		if changed, err := l.Save(p); err != nil || changed {
			t.Fatalf("save of an unchanged ledger: changed=%v err=%v", changed, err)
		}
	})
	return l, compact, save
}
