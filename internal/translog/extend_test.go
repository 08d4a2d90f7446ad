package translog

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// extendedByWhole is extendedBy as it was before it compared bytes
// first: every published entry parsed, its row marshaled with the parsed
// category.
func extendedByWhole(p *publishedLog, entries []Entry) error {
	if int64(len(entries)) < p.cp.Size {
		return &HistoryError{Index: int64(len(entries)), Why: fmt.Sprintf("%d entries published, %d rows now", p.cp.Size, len(entries))}
	}
	for i, b := range p.entries {
		got, err := ParseEntry(b)
		if err != nil {
			return &HistoryError{Index: int64(i), Why: err.Error()}
		}
		want := entries[i]
		want.Category = got.Category
		if wb, err := want.Marshal(); err != nil || string(wb) != string(b) {
			return &HistoryError{Index: int64(i), Why: fmt.Sprintf("logged seq %d %s %s, the row is seq %d %s %s", got.Seq, got.Hash, got.File, want.Seq, want.Hash, want.File)}
		}
	}
	return nil
}

// changes are what a row or a published entry can come to differ by.
var changes = []func(r *rand.Rand, e *Entry){
	func(r *rand.Rand, e *Entry) { e.Seq += manifest.Seq(1 + r.IntN(3)) },
	func(r *rand.Rand, e *Entry) { e.Seq = 0 },
	func(r *rand.Rand, e *Entry) { e.Hash = manifest.HashBytes([]byte{byte(r.IntN(256))}) },
	func(r *rand.Rand, e *Entry) { e.Hash = "sha256:short" },
	func(r *rand.Rand, e *Entry) { e.File += "x" },
	func(r *rand.Rand, e *Entry) { e.File = "" },
	func(r *rand.Rand, e *Entry) { e.Type = "capability" },
	func(r *rand.Rand, e *Entry) { e.Type = "a\tb" },
	func(r *rand.Rand, e *Entry) { e.Category = "other" }, // the log keeps its own: no difference
	func(r *rand.Rand, e *Entry) { e.Category = "" },
	func(r *rand.Rand, e *Entry) { e.Submitted = e.Submitted.Add(time.Second) },
	func(r *rand.Rand, e *Entry) { e.Submitted = time.Time{} },
	func(r *rand.Rand, e *Entry) { e.Submitted = e.Submitted.In(time.FixedZone("x", 3600)) },
}

// garbles are published entry bytes no Marshal writes.
var garbles = []func(b []byte) []byte{
	func(b []byte) []byte { return b[:len(b)-1] },
	func(b []byte) []byte { return append(b, "extra\n"...) },
	func(b []byte) []byte { return []byte("seq 01" + string(b[5:])) },
	func(b []byte) []byte { return nil },
	func(b []byte) []byte { return []byte("seq 1\nhash x\nfile a\ntype \ncategory c\n") },
	func(b []byte) []byte { return []byte("\n\n\n\ncategory zz\n\n") },
}

// TestExtendedByAsEveryEntryParsed: over generated published logs and
// rows, differing or not in each field and with entries no Marshal
// writes, extendedBy gives what parsing every published entry gave,
// error for error.
func TestExtendedByAsEveryEntryParsed(t *testing.T) {
	differing := 0
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 11))
		n := 1 + r.IntN(40)
		rows := entriesN(n + r.IntN(3))
		p := &publishedLog{cp: Checkpoint{Size: int64(n)}}
		for i := range n {
			e := rows[i]
			e.Category = []string{"", "pebble", "other kind"}[r.IntN(3)]
			b, err := e.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			p.entries = append(p.entries, b)
		}
		for range r.IntN(3) {
			i := r.IntN(n)
			if r.IntN(4) == 0 {
				p.entries[i] = garbles[r.IntN(len(garbles))](p.entries[i])
			} else {
				changes[r.IntN(len(changes))](r, &rows[i])
			}
		}
		if r.IntN(10) == 0 {
			rows = rows[:r.IntN(n)]
		}
		got, want := p.extendedBy(rows), extendedByWhole(p, rows)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("seed %d: extendedBy = %v, parsing every entry = %v", seed, got, want)
		}
		if want != nil {
			differing++
		}
	}
	if differing < 100 {
		t.Errorf("only %d of the generated logs differ from their rows: the test tests too little", differing)
	}
}

// FuzzCategoryOf: for bytes ParseEntry accepts, categoryOf gives the
// category it parsed; for any bytes, it does not panic.
func FuzzCategoryOf(f *testing.F) {
	for _, e := range entriesN(3) {
		b, _ := e.Marshal()
		f.Add(b)
	}
	for _, g := range garbles {
		b, _ := entriesN(1)[0].Marshal()
		f.Add(g(b))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := categoryOf(data)
		if e, err := ParseEntry(data); err == nil && e.Category != c {
			t.Fatalf("categoryOf(%q) = %q, ParseEntry's %q", data, c, e.Category)
		}
	})
}
