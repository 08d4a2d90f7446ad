package ledger

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// summarizedYear saves a compacted year of 20 agents (yearOf: a trace
// and a validation a day each, no rejection or dispute) at a new path.
func summarizedYear(t *testing.T) string {
	t.Helper()
	now := time.Date(2029, 1, 1, 12, 0, 0, 0, time.UTC)
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	l := yearOf(20, 400, now)
	if err := l.Compact(now); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestASummaryGivesAPeerSegmentNoMap: the ledger holds what a summary
// gave of each peer of each segment (110,000 after three years of
// 10,000 agents) as a range of the peer's sealed records, not as a
// ledger with a map of each kind (docs/decisions.md, "Memory"). Counted
// through reflection, so that it reads any form a part may take.
func TestASummaryGivesAPeerSegmentNoMap(t *testing.T) {
	got, err := LoadCompact(summarizedYear(t))
	if err != nil {
		t.Fatal(err)
	}
	var parts, held int
	for _, seg := range got.seal.segs {
		for it := reflect.ValueOf(seg).FieldByName("peers").MapRange(); it.Next(); {
			parts++
			held += mapsOf(it.Value())
		}
	}
	for _, ps := range got.seal.peers {
		for it := reflect.ValueOf(ps).Elem().FieldByName("partial").MapRange(); it.Next(); {
			held += mapsOf(it.Value())
		}
	}
	if parts < 20 || held != 0 {
		t.Errorf("%d peers' records read from summaries hold %d maps, want 20 or more and none", parts, held)
	}
}

// mapsOf counts the maps of the ledgers v holds: v's own when it is a
// *Ledger, its fields' when it is a struct.
func mapsOf(v reflect.Value) int {
	n := 0
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() != reflect.TypeFor[*Ledger]() {
			return 0
		}
		for e, i := v.Elem(), 0; i < e.NumField(); i++ {
			if f := e.Field(i); f.Kind() == reflect.Map && !f.IsNil() {
				n++
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			n += mapsOf(v.Field(i))
		}
	}
	return n
}

// TestARangeGivesBackWhatItsSummaryGave: each peer's records a summary
// gave, held as a range, give back the ledger the summary's reader made
// of them, after a Compact that seals more of the same peers (which
// grows their records' lists).
func TestARangeGivesBackWhatItsSummaryGave(t *testing.T) {
	p := summarizedYear(t)
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Compact(time.Date(2029, 9, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	files, err := statefile.ListSegments(p)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]statefile.SegmentFile{}
	for _, f := range files {
		groups[summaryGroup(f.Rel)] = append(groups[summaryGroup(f.Rel)], f)
	}
	ranged := 0
	for g, fs := range groups {
		data, err := statefile.ReadSummary(p, g, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		want, err := decodeSummary(fs, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range fs {
			for name, part := range got.seal.segs[f.Rel].peers {
				if part.ps != nil {
					ranged++
				}
				if l := part.ledger(); !reflect.DeepEqual(l, want[i][name]) {
					t.Errorf("%s of %s: %v, want %v", name, f.Rel, whole(t, l), whole(t, want[i][name]))
				}
			}
		}
	}
	if ranged == 0 {
		t.Error("no peer's records held as a range")
	}
}

// TestARepairOfRangesKeepsWhatAWholeLoadReads: a summary that lies
// about a peer's trace, the peer's other records held as ranges, is
// repaired to the records a whole Load reads, and every other part of
// the peer's still gives its segment's records: a lying sequence number
// (the trace's key stays), and a hash its segment does not hold (the
// lying key goes, the segment's comes).
func TestARepairOfRangesKeepsWhatAWholeLoadReads(t *testing.T) {
	for _, c := range []struct {
		name  string
		field int
		lie   func([]byte) []byte
	}{
		{"seq", 4, func(seq []byte) []byte { return append(seq, '0') }},
		{"hash", 5, func(h []byte) []byte { return append(h[:len(h)-1:len(h)-1], 'x') }},
	} {
		t.Run(c.name, func(t *testing.T) { repairsRanges(t, c.field, c.lie) })
	}
}

// repairsRanges checks the repair of a summary whose first trace lies,
// its field changed by lie.
func repairsRanges(t *testing.T, field int, lie func([]byte) []byte) {
	p := summarizedYear(t)
	lied := lieAboutATrace(t, p, field, lie)
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Traces[lied] == nil {
		t.Fatalf("the lying summary gave no trace %s", lied)
	}
	got.WholeTrace(lied)
	if len(got.Repaired()) != 1 {
		t.Fatalf("%v repaired: want one summary", got.Repaired())
	}
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecords(got, full) {
		t.Errorf("repaired:\n%v\nwant:\n%v", whole(t, got), whole(t, full))
	}
	// Every part the ledger holds, of every peer, is still its segment's.
	for rel, seg := range got.seal.segs {
		read, err := got.readWhole(rel)
		if err != nil {
			t.Fatal(err)
		}
		for name, part := range seg.peers {
			if !agrees(part.ledger(), read[name]) {
				t.Errorf("%s of %s: %v, not its segment's %v", name, rel, whole(t, part.ledger()), whole(t, read[name]))
			}
		}
	}
}
