package verdict

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestFindReadsEveryLayout(t *testing.T) {
	tests := []struct {
		file string
		want []Verdict
	}{
		{"batch-headings.md", []Verdict{
			{"kestrel", 14, Valid, 9, LayoutVerdict},
			{"kestrel", 15, Partial, 15, LayoutVerdict},
			{"kestrel", 16, Invalid, 19, LayoutVerdict},
		}},
		{"bold-lead.md", []Verdict{
			{"wren", 1, Valid, 8, LayoutBoldLead},
			{"wren", 2, Invalid, 12, LayoutBoldLead},
		}},
		{"title-and-field.md", []Verdict{{"heron", 82, Valid, 8, LayoutVerdict}}},
		{"validation-type.md", []Verdict{
			{"plover", 157, Valid, 6, LayoutScore},
			{"plover", 157, Valid, 8, LayoutAssessment},
		}},
		{"status-only.md", []Verdict{{"tern", 42, Valid, 9, LayoutStatus}}},
		{"possessive-seq.md", []Verdict{
			{"gull", 1, Partial, 5, LayoutDashSuffix},
			{"gull", 2, Valid, 7, LayoutDashSuffix},
		}},
		{"prose-and-noise.md", []Verdict{{"swift", 17, Valid, 5, LayoutVerdict}}},
		{"bare-score.md", []Verdict{{"heron", 65, Valid, 11, LayoutBareScore}}},
		{"bare-score-work.md", []Verdict{{"plover", 31, Valid, 7, LayoutBareScore}}},
		{"bare-score-cites.md", []Verdict{{"wren", 169, Valid, 15, LayoutBareScore}}},
		{"endorsement.md", []Verdict{
			{"tern", 20, Valid, 1, LayoutTitle},
			{"tern", 20, Valid, 8, LayoutEndorsement},
			{"gull", 4, Invalid, 12, LayoutEndorsement},
		}},
		{"title-range.md", []Verdict{
			{"kestrel", 156, Valid, 1, LayoutTitle},
			{"kestrel", 157, Valid, 1, LayoutTitle},
			{"kestrel", 158, Valid, 1, LayoutTitle},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := Find(readTestdata(t, tt.file))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Find:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestFindReadsBoldFieldVerdicts(t *testing.T) {
	text := "# Review: ibis/7 — Cache Notes\n\n**Verdict:** INVALID. The figures are made up.\n"
	want := []Verdict{{"ibis", 7, Invalid, 3, LayoutVerdict}}
	if got := Find([]byte(text)); !reflect.DeepEqual(got, want) {
		t.Errorf("Find = %+v, want %+v", got, want)
	}
}

func TestFindNeedsANamedTrace(t *testing.T) {
	tests := []struct {
		name, text string
	}{
		{"verdict with no reference anywhere", "# Thoughts\n\n## Verdict: VALID\n"},
		{"score outside a validation trace", "# Review: plover/3\n\n**Score: 5**\n"},
		{"a path is not a reference", "# Notes\n\nSee traces/012-x.md. **Verdict: VALID.**\n"},
		{"a possessive pronoun is not an agent", "# Notes\n\nOur trace 18 holds. Verdict: VALID.\n"},
		{"a verdict word that is not a result", "# Review: plover/3\n\n## Verdict: Partially Correct\n"},
		{"a bare score outside a validation section", "# Response: x\n\n**In Response To:** plover/3\n\n## Results\n\n4/5 runs passed.\n"},
		{"a bare score that does not open a paragraph", "# Response: x\n\n**In Response To:** plover/3\n\n## Validation\n\nWe ran it.\n4/5 runs passed.\n"},
		{"a fraction that is not a score", "# Response: x\n\n**In Response To:** plover/3\n\n## Validation\n\n3/4 of the rows hold.\n"},
		{"a validated title that is not a response", "# Cache Rules Validated\n\n**Cites:** plover/3\n"},
		{"a title that says not validated", "# Response: Not Validated Yet\n\n**In Response To:** plover/3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Find([]byte(tt.text)); len(got) != 0 {
				t.Errorf("Find = %+v, want none", got)
			}
		})
	}
}

func TestAllRefsExpandsShortRanges(t *testing.T) {
	tests := []struct {
		in   string
		want []ref
	}{
		{"kestrel/156-158", []ref{{"kestrel", 156}, {"kestrel", 157}, {"kestrel", 158}}},
		{"czero/025, newagent2/088", []ref{{"czero", 25}, {"newagent2", 88}}},
		{"kestrel/5-400", []ref{{"kestrel", 5}}},                          // too long a range: its first only
		{"kestrel/9-3", []ref{{"kestrel", 9}}},                            // backwards: its first only
		{"traces/012-name.md", nil},                                       // a path
		{"kestrel/4, kestrel/4-5", []ref{{"kestrel", 4}, {"kestrel", 5}}}, // once each
	}
	for _, tt := range tests {
		if got := allRefs(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("allRefs(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestResultOfScoreUsesTheScale(t *testing.T) {
	tests := []struct {
		n, outOf string
		want     Result
	}{
		{"5", "", Valid}, {"4", "", Valid}, {"3", "", Partial}, {"2", "", Invalid},
		{"9", "/10", Valid}, {"7", "/10", Partial}, {"4", "/10", Invalid},
	}
	for _, tt := range tests {
		if got := resultOfScore(tt.n, tt.outOf); got != tt.want {
			t.Errorf("resultOfScore(%q, %q) = %s, want %s", tt.n, tt.outOf, got, tt.want)
		}
	}
}

// TestFindInCorpus checks the parser against the real mesh: every layout
// its agents used is found at least once.
func TestFindInCorpus(t *testing.T) {
	dir := corpustest.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	layouts := map[string]int{}
	total := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range Find(raw) {
			layouts[v.Layout]++
			total++
		}
	}
	for _, l := range Layouts {
		if layouts[l] == 0 {
			t.Errorf("layout %s: no verdict found in the corpus", l)
		}
	}
	if total < 25 {
		t.Errorf("%d verdicts in the corpus, want at least 25", total)
	}
	t.Logf("%d verdicts: %v", total, layouts)
}

func FuzzFind(f *testing.F) {
	entries, _ := os.ReadDir("testdata")
	for _, e := range entries {
		f.Add(readTestdata(f, e.Name()))
	}
	if dir, ok := corpustest.Find(); ok {
		for _, name := range []string{
			"newagent2/traces/054-trace.md", "bottymcbotface/traces/015-trace.md", "czero/traces/065-trace.md",
			"newagent2/traces/095-trace.md", "newagent2/traces/085-trace.md", "czero/traces/072-trace.md",
			"noobagent/traces/173-response-newagent2-deep-run-seven-traces-validated.md",
		} {
			if raw, err := os.ReadFile(filepath.Join(dir, "agents-hosted", name)); err == nil {
				f.Add(raw)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		got := Find(text)
		lines := len(strings.Split(string(text), "\n"))
		for _, v := range got {
			if v.Agent == "" || v.Agent != strings.ToLower(v.Agent) || v.Seq <= 0 {
				t.Fatalf("bad reference %+v", v)
			}
			if v.Result != Valid && v.Result != Partial && v.Result != Invalid {
				t.Fatalf("bad result %+v", v)
			}
			if v.Line < 1 || v.Line > lines {
				t.Fatalf("line %d outside 1–%d", v.Line, lines)
			}
		}
		crlf := bytes.ReplaceAll(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
		if again := Find(crlf); !reflect.DeepEqual(again, Find(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")))) {
			t.Fatalf("line endings change the verdicts: %+v vs %+v", again, got)
		}
	})
}

// mayJudgeLowered is mayJudge as it was: a search of a lowered copy.
func mayJudgeLowered(text []byte) bool {
	low := bytes.ToLower(text)
	return bytes.Contains(low, []byte("valid")) || bytes.Contains(low, []byte("verdict"))
}

// FuzzMayJudgeMatchesLowering wants mayJudge's answer to be the lowered
// copy's, on ASCII text and on any other.
func FuzzMayJudgeMatchesLowering(f *testing.F) {
	for _, s := range []string{"", "VALID", "Validated", "vALiD", "valI", "VERDICT: pass", "verdic", "VALİD", "İnvalid", "\xffvalid", "v", "vvalid"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if got, want := mayJudge(text), mayJudgeLowered(text); got != want {
			t.Fatalf("mayJudge(%q) = %v, the lowered copy says %v", text, got, want)
		}
	})
}

// TestMayJudgeCopiesNoASCIIText wants ASCII text searched in place: a
// lowered copy of every trace was 17 MB of a cold build's garbage.
func TestMayJudgeCopiesNoASCIIText(t *testing.T) {
	text := bytes.Repeat([]byte("The mesh verifies every hash before it trusts a byte. "), 100)
	if n := testing.AllocsPerRun(20, func() { mayJudge(text) }); n != 0 {
		t.Errorf("mayJudge allocated %v times", n)
	}
}
