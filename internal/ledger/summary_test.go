package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

const bolt2 = "https://bolt.example/b/"

// everyField is a ledger with a record of each kind, each field set, in
// both the forms a summary writes short (a file's URL under its peer's)
// and not.
func everyField(t *testing.T) *Ledger {
	t.Helper()
	l := New()
	t1 := &Trace{Agent: "jolt37", AgentURL: jolt, Seq: 42, Hash: "sha256:bb", File: "traces/b.md", URL: jolt + "traces/b.md",
		Type: "capability", Category: "ops", Title: "B", Status: "validated", Submitted: day1, FirstSeen: day2,
		Cites: []string{"axon37/3"}, Fingerprint: 0xfeed, Verified: true, Verdicts: []Verdict{{Agent: "axon37", Seq: 3, Result: "valid"}},
		TakenDown: Withdrawn}
	l.AddTrace(t1)
	l.AddTrace(&Trace{Agent: "Jolt", AgentURL: jolt, Seq: 41, Hash: "sha256:aa", File: "traces/a.md", URL: "https://mirror.example/a.md", FirstSeen: day1})
	l.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt2, Seq: 2, Hash: "sha256:bb", File: "c.md", URL: bolt2 + "c.md", Title: "Copy",
		Category: "x", Fingerprint: 1, Verified: true, FirstSeen: day1})
	v := &Validation{Validator: "axon37", ValidatorURL: axon, TraceURL: jolt + "traces/b.md", TraceHash: "sha256:bb",
		Result: "pass", Total: 22, Scores: validation.Scores{4, 3, 4, 4, 4, 3}, HasScores: true, ValidatedAt: day1,
		SourceURL: axon + "validations/b.md", SourceHash: "sha256:vb"}
	l.AddValidation(v)
	l.AddValidation(&Validation{Validator: "Axon", ValidatorURL: axon, TraceHash: "sha256:aa", Result: "fail", ValidatedAt: day2,
		SourceURL: "https://elsewhere.example/v.md", SourceHash: "sha256:va"})
	r := &Rejection{Agent: "jolt37", AgentURL: jolt, Seq: 43, ClaimedHash: "sha256:cc", ServedHash: "sha256:dd", At: day2}
	l.AddRejection(jolt+"traces/c.md", r)
	d := &Dispute{Reporter: "bolt", ReporterURL: bolt2, Agent: "jolt37", AgentURL: jolt, FileURL: jolt + "traces/c.md", Seq: 43,
		ClaimedHash: "sha256:cc", ServedHash: "sha256:dd", ObservedAt: day2, SourceURL: bolt2 + "d.md", SourceHash: "sha256:d9"}
	l.AddDispute(d)
	for _, rec := range []any{t1, v, r, d} {
		rv := reflect.ValueOf(rec).Elem()
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				t.Fatalf("%T.%s is unset: set it, so the summary is seen to keep it", rec, rv.Type().Field(i).Name)
			}
		}
	}
	return l
}

// sealedEveryField saves everyField, every record sealed, at a new path.
func sealedEveryField(t *testing.T) (string, *Ledger) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	l := everyField(t)
	compacted(t, l, later)
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	return p, l
}

// summarizedCopy is l with its traces and copies as a summary holds them.
func summarizedCopy(l *Ledger) *Ledger {
	c := New()
	c.add(l)
	c.Copies = map[string]*Trace{}
	for k, t := range l.Traces {
		c.Traces[k] = summarized(t)
	}
	for k, t := range l.Copies {
		c.Copies[k] = summarized(t)
	}
	return c
}

func TestSummaryHoldsEveryFieldButATracesTitleAndCitations(t *testing.T) {
	p, _ := sealedEveryField(t)
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.seal.summaries) != 0 || len(got.seal.records) == 0 {
		t.Fatalf("%d summaries to write, %d sealed records: the records were not read from their summaries", len(got.seal.summaries), len(got.seal.records))
	}
	if want := summarizedCopy(full); !sameRecords(got, want) {
		t.Errorf("through the summaries:\n%v\nwant:\n%v", whole(t, got), whole(t, want))
	}
}

func TestDamagedSummaryIsReadFromItsSegmentAndWrittenAgain(t *testing.T) {
	other := func(t *testing.T, p, rel string, _ []byte) []byte {
		for _, f := range listSegments(t, p) {
			if f.Rel != rel {
				return f.Summary
			}
		}
		t.Fatal("one segment only")
		return nil
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, p, rel string, data []byte) []byte
	}{
		{"missing", func(*testing.T, string, string, []byte) []byte { return nil }},
		{"truncated", func(_ *testing.T, _, _ string, data []byte) []byte { return data[:len(data)/2] }},
		{"a byte of its records changed", func(_ *testing.T, _, _ string, data []byte) []byte {
			return bytes.Replace(data, []byte(`"s":42`), []byte(`"s":52`), 1)
		}},
		{"another segment's", other},
		{"another version", func(_ *testing.T, _, _ string, data []byte) []byte {
			return bytes.Replace(data, []byte(`{"version":1,`), []byte(`{"version":9,`), 1)
		}},
		{"no header", func(_ *testing.T, _, _ string, data []byte) []byte { return []byte("{}") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := sealedEveryField(t)
			rel, fp := joltSegment(t, p)
			good, err := os.ReadFile(fp)
			if err != nil {
				t.Fatal(err)
			}
			if bad := tc.damage(t, p, rel, good); bad == nil {
				os.Remove(fp)
			} else if err := os.WriteFile(fp, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			full, _ := Load(p)
			got, err := LoadCompact(p)
			if err != nil {
				t.Fatal(err)
			}
			// jolt's records are read whole, with their citations.
			if !reflect.DeepEqual(got.Traces["sha256:bb"], full.Traces["sha256:bb"]) {
				t.Errorf("trace read as %+v, want %+v, from its segment", got.Traces["sha256:bb"], full.Traces["sha256:bb"])
			}
			if changed, err := got.Save(p); err != nil || !changed {
				t.Fatalf("save: changed=%v err=%v", changed, err)
			}
			if again, _ := os.ReadFile(fp); !bytes.Equal(again, good) {
				t.Errorf("summary written again as\n%s\nwant\n%s", again, good)
			}
		})
	}
}

// joltSegment is the rel of jolt's segment in the ledger at p, and its
// summary's file.
func joltSegment(t *testing.T, p string) (string, string) {
	t.Helper()
	for _, f := range listSegments(t, p) {
		if path.Dir(f.Rel)+".json" == statefile.PeerFileName(jolt) {
			fp := filepath.Join(statefile.SegmentsDir(p), filepath.FromSlash(f.Rel))
			return f.Rel, fp[:len(fp)-len(".json")] + ".summary"
		}
	}
	t.Fatal("no segment of jolt")
	return "", ""
}

func listSegments(t *testing.T, p string) []statefile.SegmentFile {
	t.Helper()
	segs, err := statefile.ListSegments(p)
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments %v: %v", segs, err)
	}
	return segs
}

// TestSummaryThatDisagreesWithItsSegmentFailsTheSave: a summary whose
// header is whole but whose records are not its segment's (written by
// hand) is found when a change reads the segment, and the save that
// would write the change writes nothing.
func TestSummaryThatDisagreesWithItsSegmentFailsTheSave(t *testing.T) {
	p, _ := sealedEveryField(t)
	rel, fp := joltSegment(t, p)
	data, err := statefile.ReadSegment(p, rel)
	if err != nil {
		t.Fatal(err)
	}
	seg, err := decode(data)
	if err != nil {
		t.Fatal(err)
	}
	seg.Traces["sha256:bb"].Seq = 52
	lie, err := encodeSummary(rel, data, seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fp, lie, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	_, before, _ := statefile.Read(p)
	l.TakeDown("sha256:bb", "")
	if _, err := l.Save(p); !errors.Is(err, errStaleSummary) {
		t.Fatalf("save: %v, want the summary found stale", err)
	}
	if _, after, _ := statefile.Read(p); !reflect.DeepEqual(after, before) {
		t.Error("the failed save wrote the peers' files")
	}
}

func FuzzDecodeSummary(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "ledger.json")
	l := sample()
	l.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 2, Hash: "sha256:bb", FirstSeen: day2})
	if err := l.Compact(later); err != nil {
		f.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		f.Fatal(err)
	}
	segs, err := statefile.ListSegments(p)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range segs {
		f.Add(s.Rel, s.Size, s.Summary)
	}
	f.Fuzz(func(t *testing.T, rel string, size int64, data []byte) {
		got, err := decodeSummary(rel, size, data)
		if err != nil {
			return
		}
		// What it holds, summarized again, reads back the same.
		body, err := json.Marshal(summaryOf(got))
		if err != nil {
			t.Fatal(err)
		}
		var b summaryBody
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatal(err)
		}
		if again := b.ledger(); !agrees(again, got) {
			t.Errorf("summary read back as %+v, want %+v", again, got)
		}
	})
}
