package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
)

// TestOlderNodesSummaryIsReadWholeAndWrittenInTheNewForm: testdata/
// summary-v1 is everyField sealed and saved by a node that wrote version 1
// summaries (JSON objects). A heartbeat takes them as stale, reads the
// segments whole, and its save writes every summary in this version, which
// the next heartbeat reads.
func TestOlderNodesSummaryIsReadWholeAndWrittenInTheNewForm(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mesh-state")
	if err := os.CopyFS(dir, os.DirFS("testdata/summary-v1")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "ledger.json")
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	groups := summaryGroups(t, p)
	if len(got.seal.dirty) != len(groups) {
		t.Fatalf("%d of %d groups found stale: an older node's summaries were taken", len(got.seal.dirty), len(groups))
	}
	if !sameRecords(got, full) {
		t.Errorf("read as\n%v\nwant, whole:\n%v", whole(t, got), whole(t, full))
	}
	if changed, err := got.Save(p); err != nil || !changed {
		t.Fatalf("save: changed=%v err=%v", changed, err)
	}
	for _, g := range groups {
		data, err := statefile.ReadSummary(p, g, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte(`{"version":2,`)) {
			t.Errorf("summary %s written as\n%s", g, data)
		}
	}
	again, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.seal.dirty) != 0 || !sameRecords(again, summarizedCopy(full)) {
		t.Errorf("%d groups stale after the save; read as\n%v", len(again.seal.dirty), whole(t, again))
	}
}

// summaryGroups is the groups of the segments of the ledger at p.
func summaryGroups(t *testing.T, p string) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, f := range listSegments(t, p) {
		if g := summaryGroup(f.Rel); !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}

// oddStrings is a ledger whose records' strings hold what a summary's
// fields escape (tabs, newlines, backslashes, its "\-"), and are empty
// where their default is not.
func oddStrings() *Ledger {
	l := New()
	l.AddTrace(&Trace{Agent: "tab\there", AgentURL: jolt, Seq: 1, Hash: "sha256:a\\b", File: "new\nline.md", URL: jolt + "new\nline.md",
		Type: `\-`, Category: "\\", Status: "\t", FirstSeen: day1, Verdicts: []Verdict{{Agent: "a\tb", Seq: -3, Result: "\n"}}})
	l.AddTrace(&Trace{Agent: "", AgentURL: jolt, Seq: 2, Hash: "sha256:c", File: "c.md", URL: "", FirstSeen: day1})
	l.AddTrace(&Trace{Agent: "jolt", AgentURL: jolt, Seq: 3, Hash: "sha256:d", File: `\-`, URL: jolt + `\-`, FirstSeen: day1})
	l.AddValidation(&Validation{Validator: "", ValidatorURL: jolt, TraceHash: "sha256:c", SourceURL: jolt + "v\t.md",
		SourceHash: "sha256:v\\", ValidatedAt: day1, Total: -1})
	l.AddRejection(jolt+"r\t.md", &Rejection{Agent: "jolt", AgentURL: jolt, ClaimedHash: "sha256:\n", At: day1})
	return l
}

func TestSummaryKeepsStringsItsFieldsEscape(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	l := oddStrings()
	compacted(t, l, later)
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	listSegments(t, p) // they are sealed
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.seal.dirty) != 0 {
		t.Fatalf("%d groups stale: the records were not read from their summaries", len(got.seal.dirty))
	}
	if want := summarizedCopy(full); !reflect.DeepEqual(whole(t, got), whole(t, want)) || !sameRecords(got, want) {
		t.Errorf("through the summaries:\n%v\nwant:\n%v", whole(t, got), whole(t, want))
	}
}
