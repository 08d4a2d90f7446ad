package ledger

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAPromotedCopyTakesTheFirstListingsPlaceAndKeepsIt: the copy of an
// agent promoted is the record of its hash, and the first listing is its
// lister's copy, still marked withdrawn (a mark of disputed is dropped:
// disputes are judged for the record of the hash), also when both were
// sealed in segments, after a save and a load; a hash without that
// agent's copy promotes nothing.
func TestAPromotedCopyTakesTheFirstListingsPlaceAndKeepsIt(t *testing.T) {
	const mirror, author = "https://mirror.example/", "https://author.example/"
	h := manifest.Hash("sha256:" + strings.Repeat("ef", 32))
	for _, tc := range []struct {
		sealed  bool
		why     string // the first listing's take-down
		demoted string // its copy's
	}{
		{false, Withdrawn, Withdrawn}, {true, Withdrawn, Withdrawn}, {false, Disputed, ""}, {true, Disputed, ""},
	} {
		sealed := tc.sealed
		t.Run(map[bool]string{false: "in their peers' files", true: "sealed"}[sealed]+", "+tc.why, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
			l := New()
			l.AddTrace(&Trace{Agent: "mirror", AgentURL: mirror, Seq: 1, Hash: h, URL: mirror + "traces/a.md", FirstSeen: day1, Verified: true})
			l.AddCopy(&Trace{Agent: "author", AgentURL: author, Seq: 7, Hash: h, URL: author + "traces/a.md", FirstSeen: day2, Verified: true})
			l.TakeDown(h, tc.why)
			if sealed {
				compacted(t, l, later)
			}
			if _, err := l.Save(path); err != nil {
				t.Fatal(err)
			}
			l, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if l.Promote(h, "https://nobody.example/") || l.Promote(h, mirror) {
				t.Fatal("promoted a copy nobody lists, or the first listing itself")
			}
			if !l.Promote(h, author) {
				t.Fatal("the author's copy was not promoted")
			}
			if sealed {
				compacted(t, l, later)
			}
			if _, err := l.Save(path); err != nil {
				t.Fatal(err)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if tr := back.Traces[h]; tr == nil || tr.AgentURL != author || tr.Seq != 7 || tr.TakenDown != "" {
				t.Errorf("the record of the hash is %+v, want the author's, published", tr)
			}
			c := back.Copies[CopyKey(mirror, h)]
			if c == nil || c.Seq != 1 || c.TakenDown != tc.demoted || len(back.Copies) != 1 {
				t.Errorf("copies %v: want the mirror's listing alone, taken down %q", back.Copies, tc.demoted)
			}
		})
	}
}

// TestACopyIsMarkedWithdrawnAndPublishedAgain: TakeDownCopy marks one
// lister's copy, read back after a save and a load also when it was
// sealed, and clears the mark; a copy the ledger does not hold is
// reported so.
func TestACopyIsMarkedWithdrawnAndPublishedAgain(t *testing.T) {
	const mirror, author = "https://mirror.example/", "https://author.example/"
	h := manifest.Hash("sha256:" + strings.Repeat("ef", 32))
	for _, sealed := range []bool{false, true} {
		t.Run(map[bool]string{false: "in its peer's file", true: "sealed"}[sealed], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
			l := New()
			l.AddTrace(&Trace{Agent: "mirror", AgentURL: mirror, Seq: 1, Hash: h, FirstSeen: day1, Verified: true})
			l.AddCopy(&Trace{Agent: "author", AgentURL: author, Seq: 7, Hash: h, FirstSeen: day1, Verified: true})
			if sealed {
				compacted(t, l, later)
			}
			for _, why := range []string{Withdrawn, ""} {
				if l.TakeDownCopy(mirror, h, why) {
					t.Fatal("marked a copy the mirror does not list")
				}
				if !l.TakeDownCopy(author, h, why) {
					t.Fatal("the author's copy is not held")
				}
				if _, err := l.Save(path); err != nil {
					t.Fatal(err)
				}
				back, err := Load(path)
				if err != nil {
					t.Fatal(err)
				}
				if c := back.Copies[CopyKey(author, h)]; c == nil || c.TakenDown != why || c.Seq != 7 {
					t.Errorf("the author's copy read back is %+v, want taken down %q", c, why)
				}
				l = back
			}
		})
	}
}
