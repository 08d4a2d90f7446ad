package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// later is when every record of sample() is past the window: day1 and
// day2 fall in 2026-Q1, which ended 2026-04-01.
var later = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

// whole is every record of l, one file per peer as a ledger without
// segments writes them: what Load must give back however l was saved.
func whole(t *testing.T, l *Ledger) map[string]string {
	t.Helper()
	c := New()
	c.add(l)
	files, err := c.Files()
	if err != nil {
		t.Fatal(err)
	}
	return stringsOf(files)
}

func compacted(t *testing.T, l *Ledger, now time.Time) {
	t.Helper()
	if err := l.Compact(now); err != nil {
		t.Fatal(err)
	}
}

func TestCompactedLedgerLoadsBackEveryRecord(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	l := sample()
	l.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 2, Hash: "sha256:bb", FirstSeen: day2})
	want := whole(t, l)
	compacted(t, l, later)
	if changed, err := l.Save(p); err != nil || !changed {
		t.Fatalf("save: changed=%v err=%v", changed, err)
	}
	segs, err := statefile.ReadSegments(p)
	if err != nil || len(segs) != 3 {
		t.Fatalf("segments %v (err %v): want one for each of jolt, axon and bolt", keys(segs), err)
	}
	_, files, _ := statefile.Read(p)
	if len(files) != 0 {
		t.Errorf("peers' files %v remain: every record is sealed", keys(files))
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := whole(t, back); !reflect.DeepEqual(got, want) {
		t.Errorf("loaded back:\n%v\nwant:\n%v", got, want)
	}
	compacted(t, back, later.AddDate(1, 0, 0))
	if changed, err := back.Save(p); err != nil || changed {
		t.Errorf("compact and save of a loaded compacted ledger: changed=%v err=%v, want nothing", changed, err)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCompactSealsOnlyQuartersPastTheWindow(t *testing.T) {
	for _, tc := range []struct {
		now  time.Time
		want int
	}{
		{time.Date(2026, 6, 29, 23, 0, 0, 0, time.UTC), 0}, // 2026-Q1 ended 89 days before
		{time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC), 2},  // 90 days: jolt's and axon's
	} {
		l := sample()
		compacted(t, l, tc.now)
		got := 0
		if l.seal != nil {
			got = len(l.seal.create)
		}
		if got != tc.want {
			t.Errorf("at %s: %d segments, want %d", tc.now, got, tc.want)
		}
	}
}

// TestSaveOfEachChangeToASealedRecordLoadsBack: every change a method
// makes to records already in segments survives a Save and Load whole,
// and a segment on disk is never rewritten.
func TestSaveOfEachChangeToASealedRecordLoadsBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(l *Ledger)
	}{
		{"status of a sealed trace", func(l *Ledger) {
			l.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 42, Hash: "sha256:bb", Status: "validated"})
		}},
		{"take a sealed trace down", func(l *Ledger) { l.TakeDown("sha256:bb", Withdrawn) }},
		// A summary holds no title: the new one must not be taken for
		// what the segment holds.
		{"title of a sealed trace", func(l *Ledger) {
			l.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 42, Hash: "sha256:bb", Title: "Renamed"})
		}},
		// aaa's segments are read before jolt's: were jolt's old record of
		// the trace still sealed, it would hide aaa's once that is sealed.
		{"sealed trace that moves to another agent", func(l *Ledger) {
			l.AddTrace(&Trace{Agent: "aaa", AgentURL: "https://aaa.example/traces/", Seq: 9, Hash: "sha256:aa"})
		}},
		{"sealed rejection of a file now another agent's", func(l *Ledger) {
			l.AddRejection(jolt+"traces/c.md", &Rejection{Agent: "aaa", AgentURL: "https://aaa.example/traces/", ClaimedHash: "sha256:c2", ServedHash: "sha256:d2", At: day1})
		}},
		{"validation of a sealed trace", func(l *Ledger) {
			l.AddValidation(&Validation{Validator: "bolt", ValidatorURL: bolt, TraceHash: "sha256:bb", Result: "fail", SourceHash: "sha256:v1", ValidatedAt: later})
		}},
		{"validation dated in a sealed quarter", func(l *Ledger) {
			l.AddValidation(&Validation{Validator: "axon37", ValidatorURL: axon, TraceHash: "sha256:aa", Result: "pass", SourceHash: "sha256:v2", ValidatedAt: day2})
		}},
		{"forget a peer", func(l *Ledger) { l.Forget(axon) }},
		{"rename a peer", func(l *Ledger) { l.Rename(jolt, bolt) }},
		{"forget a peer whose trace another lists", func(l *Ledger) { l.Forget(jolt) }},
		{"dispute", func(l *Ledger) {
			l.AddDispute(&Dispute{Reporter: "bolt", ReporterURL: bolt, Agent: "jolt37", AgentURL: jolt, Seq: 43, ClaimedHash: "sha256:cc", ServedHash: "sha256:dd", SourceHash: "sha256:d9"})
		}},
		{"nothing", func(*Ledger) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := changedSealed(t, Load, tc.change)
			// A heartbeat reads the sealed records from their summaries:
			// a change must read them whole, so the files hold the same.
			if got := changedSealed(t, LoadCompact, tc.change); !reflect.DeepEqual(got, want) {
				t.Errorf("through the summaries:\n%v\nwant:\n%v", got, want)
			}
		})
	}
}

// changedSealed saves sample(), compacted, loads it with load, changes
// it, compacts and saves it again, and returns every record as Load then
// reads them back, checking that no segment was rewritten.
func changedSealed(t *testing.T, load func(string) (*Ledger, error), change func(l *Ledger)) map[string]string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	before := sample()
	before.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 2, Hash: "sha256:bb", Title: "Copied", FirstSeen: day2})
	compacted(t, before, later)
	if _, err := before.Save(p); err != nil {
		t.Fatal(err)
	}
	sealed, _ := statefile.ReadSegments(p)
	l, err := load(p)
	if err != nil {
		t.Fatal(err)
	}
	change(l)
	compacted(t, l, later.AddDate(0, 3, 0))
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	now, _ := statefile.ReadSegments(p)
	for rel, data := range now {
		if old, ok := sealed[rel]; ok && string(old) != string(data) {
			t.Errorf("segment %s was rewritten", rel)
		}
	}
	// The save left the summaries of the segments as they now are.
	c, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.seal != nil && len(c.seal.dirty) != 0 {
		t.Errorf("summaries of %v stale after the save", c.seal.dirty)
	}
	if !sameRecords(c, summarizedCopy(back)) {
		t.Errorf("through the summaries:\n%v\nwant:\n%v", whole(t, c), whole(t, summarizedCopy(back)))
	}
	return whole(t, back)
}

func TestOldNodesLedgerIsCompactedAtItsFirstSave(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	old := sample()
	old.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 44, Hash: "sha256:ee", FirstSeen: later})
	if _, err := old.Save(p); err != nil { // as the code before segments wrote it
		t.Fatal(err)
	}
	want := whole(t, old)
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	compacted(t, l, later)
	if changed, err := l.Save(p); err != nil || !changed {
		t.Fatalf("first save: changed=%v err=%v", changed, err)
	}
	_, files, _ := statefile.Read(p)
	joltFile := files[statefile.PeerFileName(jolt)]
	if strings.Contains(string(joltFile), "sha256:bb") || !strings.Contains(string(joltFile), "sha256:ee") {
		t.Errorf("jolt's file keeps what was sealed or lost its recent trace:\n%s", joltFile)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := whole(t, back); !reflect.DeepEqual(got, want) {
		t.Errorf("loaded back:\n%v\nwant:\n%v", got, want)
	}
}

// TestSaveStoppedAfterItsSegmentsLoadsWholeAndFinishes: a run that wrote
// its segments and stopped before the peers' files loads every record
// once, and its next Save takes the sealed records out of the files.
func TestSaveStoppedAfterItsSegmentsLoadsWholeAndFinishes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	l := sample()
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	want := whole(t, l)
	compacted(t, l, later)
	if _, err := l.saveSegments(p); err != nil { // and stop
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := whole(t, back); !reflect.DeepEqual(got, want) {
		t.Errorf("loaded back:\n%v\nwant:\n%v", got, want)
	}
	if changed, err := back.Save(p); err != nil || !changed {
		t.Fatalf("save: changed=%v err=%v, want the files rewritten", changed, err)
	}
	if _, files, _ := statefile.Read(p); len(files) != 0 {
		t.Errorf("files %v still hold sealed records", keys(files))
	}
}

func TestASegmentIsNeverRewritten(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	rel := "peer-00000000/2026-Q1-00000000.json"
	if err := statefile.CreateSegment(p, rel, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := statefile.CreateSegment(p, rel, []byte("{}\n")); err != nil {
		t.Errorf("the same bytes again: %v", err)
	}
	if err := statefile.CreateSegment(p, rel, []byte("{\"traces\":{}}\n")); err == nil {
		t.Error("other bytes under a segment's name were accepted")
	}
	if data, _ := os.ReadFile(filepath.Join(statefile.SegmentsDir(p), filepath.FromSlash(rel))); string(data) != "{}\n" {
		t.Errorf("segment now %q", data)
	}
	for _, bad := range []string{"x.json", "../x/2026-Q1-00000000.json", "a/b/c.json", "peer/.hidden.json"} {
		if err := statefile.CreateSegment(p, bad, nil); err == nil {
			t.Errorf("%q accepted as a segment's name", bad)
		}
	}
}

func TestSegmentWithABadNameIsCorrupt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	if err := statefile.CreateSegment(p, "peer-00000000/old.json", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	var ce *statefile.CorruptError
	if _, err := Load(p); !errors.As(err, &ce) {
		t.Fatalf("load: %v, want a CorruptError", err)
	}
}

func TestQuarterNamesEveryTimeASegmentCanHold(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Time{}, "0001-Q1"},
		{time.Date(-5, 6, 1, 0, 0, 0, 0, time.UTC), "0001-Q1"},
		{time.Date(2026, 3, 31, 23, 59, 0, 0, time.UTC), "2026-Q1"},
		{time.Date(2026, 4, 1, 1, 0, 0, 0, time.FixedZone("X", 7200)), "2026-Q1"}, // 23:00 UTC on 31 March
		{time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC), "2026-Q4"},
	} {
		got := quarter(tc.at)
		if got != tc.want || !segmentName.MatchString(got+"-00000000.json") {
			t.Errorf("quarter(%s) = %q, want %q", tc.at, got, tc.want)
		}
	}
}
