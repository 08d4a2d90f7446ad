package ledger

import "testing"

// TestSummaryGivesAPeerNoMapForRecordsItHasNone: a summary holds a
// ledger for each peer of each segment (110,000 after three years of
// 10,000 agents), so a peer's rejections and disputes get a map only
// when it has some; a peer that has some still reads them all.
func TestSummaryGivesAPeerNoMapForRecordsItHasNone(t *testing.T) {
	p, _ := sealedEveryField(t)
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	var partials, rejected, disputes int
	for name, ps := range got.seal.peers {
		for rel, p := range ps.partial {
			partials++
			part := p.ledger()
			for _, m := range []struct {
				kind    string
				isNil   bool
				n       int
				counter *int
			}{
				{"rejections", part.Rejected == nil, len(part.Rejected), &rejected},
				{"disputes", part.Disputes == nil, len(part.Disputes), &disputes},
			} {
				*m.counter += m.n
				if m.n == 0 && !m.isNil {
					t.Errorf("peer %s of %s: an empty map of %s", name, rel, m.kind)
				}
			}
		}
	}
	// everyField seals a rejection and a dispute, of two peers of three.
	if partials < 3 || rejected != 1 || disputes != 1 {
		t.Errorf("%d peers' records read from summaries, %d rejections and %d disputes among them, want 3 or more, 1 and 1",
			partials, rejected, disputes)
	}
}
