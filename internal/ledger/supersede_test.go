package ledger

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAVerifiedTraceSupersedesAnotherAgentsUnverifiedRecord: a row
// without a file column recorded a stranger's unverified trace under a
// hash; the verified file of another agent takes its place whole, merged
// with nothing of the row, and no copy is left of the row, also when the
// row's record was sealed in a segment (and the author's is sealed in
// turn), after a save and a load.
func TestAVerifiedTraceSupersedesAnotherAgentsUnverifiedRecord(t *testing.T) {
	const stranger, author = "https://stranger.example/", "https://author.example/"
	h := manifest.Hash("sha256:" + strings.Repeat("cd", 32))
	for _, sealed := range []bool{false, true} {
		t.Run(map[bool]string{false: "in its peer's file", true: "sealed"}[sealed], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
			l := New()
			l.AddTrace(&Trace{Agent: "stranger", AgentURL: stranger, Seq: 1, Hash: h, Category: "rock", Title: "Stolen", Status: "pending", FirstSeen: day1})
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
			want := Trace{Agent: "author", AgentURL: author, Seq: 7, Hash: h, File: "traces/a.md", URL: author + "traces/a.md",
				Type: "knowledge", Status: "pending", FirstSeen: day2, Verified: true}
			l.Supersede(&want)
			if sealed {
				// Sealed too, the author's record must be the one a load reads.
				compacted(t, l, later)
			}
			if _, err := l.Save(path); err != nil {
				t.Fatal(err)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := back.Traces[h]; got == nil || !got.FirstSeen.Equal(want.FirstSeen) || got.Category != "" || got.Title != "" ||
				got.AgentURL != author || got.Seq != want.Seq || !got.Verified {
				t.Errorf("the record of the hash is %+v, want the author's alone: %+v", got, want)
			}
			if len(back.Copies) != 0 || len(back.TracesBy(stranger)) != 0 {
				t.Errorf("the stranger's row is still recorded: copies %v, traces %v", back.Copies, back.TracesBy(stranger))
			}
		})
	}
}
