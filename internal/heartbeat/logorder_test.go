package heartbeat

import (
	"github.com/meshnode/meshnode/internal/cputime"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// sortedWhole is logEntries' order as it was computed before bySeq: every
// row sorted.
func sortedWhole(rows []manifest.Entry) []manifest.Entry {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b manifest.Entry) int { return int(a.Seq - b.Seq) })
	return rows
}

// pagedRows are seqs 1..n as a node lists them: pages of per rows
// newest first, oldest page first, then MANIFEST.md newest first.
func pagedRows(n, per int) []manifest.Entry {
	var out []manifest.Entry
	for first := 1; first <= n; first += per {
		last := min(first+per-1, n)
		for s := last; s >= first; s-- {
			out = append(out, manifest.Entry{Seq: manifest.Seq(s), File: "f" + string(rune('a'+s%26))})
		}
	}
	return out
}

// TestBySeqAsSortingEveryRow: rows as a node lists them, and rows
// shuffled, with seqs repeated or missing, come out of bySeq as sorting
// them all put them.
func TestBySeqAsSortingEveryRow(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 3))
		rows := pagedRows(r.IntN(300), 1+r.IntN(60))
		switch {
		case len(rows) == 0:
		case seed%5 == 1:
			r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		case seed%5 == 2:
			i := r.IntN(len(rows))
			rows = slices.Insert(rows, r.IntN(len(rows)), manifest.Entry{Seq: rows[i].Seq, File: "again"})
		case seed%5 == 3:
			i := r.IntN(len(rows))
			rows = slices.Delete(rows, i, i+1+r.IntN(len(rows)-i))
		}
		if got, want := bySeq(rows), sortedWhole(rows); !reflect.DeepEqual(got, want) {
			t.Errorf("seed %d: bySeq\n%v\nsorting every row\n%v", seed, got, want)
		}
	}
}

// BenchmarkLogOrder is logEntries' ordering of a node's 55,000 rows, as
// the three-year history's node lists them (pages of 5,000, newest
// first), by bySeq and by sorting every row:
//
//	go test ./internal/heartbeat/ -run - -bench LogOrder -benchmem
func BenchmarkLogOrder(b *testing.B) {
	rows := pagedRows(54_750, 5_000)
	for _, o := range []struct {
		name string
		f    func([]manifest.Entry) []manifest.Entry
	}{{"runs", bySeq}, {"sort", sortedWhole}} {
		b.Run(o.name, func(b *testing.B) {
			cputime.Loop(b, func() {
				if out := o.f(rows); !risingSeqs(out) {
					b.Fatal("not in seq order")
				}
			})
		})
	}
}
