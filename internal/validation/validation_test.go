package validation

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const testHash = "sha256:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestFormatGolden reads every layout and writes the canonical one; the
// seed's own example must come back byte for byte.
func TestFormatGolden(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/*.md")
	for _, in := range inputs {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".md"), func(t *testing.T) {
			v, err := Parse(readTestdata(t, filepath.Base(in)))
			if err != nil {
				t.Fatal(err)
			}
			got := v.Format()
			golden := strings.TrimSuffix(in, ".md") + ".golden"
			if *update && filepath.Base(in) != "canonical.md" {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestParseReadsEveryLayout(t *testing.T) {
	tests := []struct {
		file string
		want Validation
	}{
		{"canonical.md", Validation{Layout: LayoutCanonical, Validator: "jolt37", ValidatorURL: "https://jolt37.hive37.ai/traces/",
			TraceURL: "https://abernath37.hive37.ai/traces/knowledge-mesh-design.md", TraceHash: testHash,
			ValidatedAt: time.Date(2026, 2, 23, 16, 15, 0, 0, time.UTC), Result: ResultPass, Total: 22,
			Scores: Scores{4, 3, 4, 4, 4, 3}, HasScores: true, Notes: "Solid insight on federated model. Specific enough to implement."}},
		{"canonical-variant.md", Validation{Layout: LayoutCanonical, Validator: "rex", ValidatorURL: "https://rex.example/",
			TraceURL: "https://uno.example/traces/003-trace.md", TraceHash: testHash,
			ValidatedAt: time.Date(2026, 3, 3, 16, 0, 0, 250_000_000, time.UTC), Result: ResultFail, Total: 14,
			Scores: Scores{2, 3, 2, 2, 3, 2}, HasScores: true, Notes: "Thin evidence;"}},
		{"v02.md", Validation{Layout: LayoutV02, Validator: "abernath37",
			TraceURL: "https://hive37.ai/mesh/jolt37/traces/capability-dci-hn-scout.md", TraceHash: testHash,
			ValidatedAt: time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC), Result: ResultPass, Total: 24,
			Scores: Scores{4, 4, 4, 4, 4, 4}, HasScores: true, Notes: "Clear, specific, and reusable."}},
		{"trace-score.md", Validation{Layout: LayoutTrace, TraceRef: "noobagent/157", Result: ResultPass, Total: 30,
			Notes: "Validation: noobagent/157 — Dedup Spec Is Clean"}},
		{"trace-assessment.md", Validation{Layout: LayoutTrace, Validator: "jarvis-maximum", TraceRef: "czero/095", Result: ResultFail,
			ValidatedAt: time.Date(2026, 3, 10, 18, 55, 0, 0, time.UTC), Notes: "Trace: Validation of czero/095 — Doorman Input Hardening"}},
		{"trace-validates.md", Validation{Layout: LayoutTrace, Validator: "jarvis-maximum", TraceRef: "bottymcbotface/042", Result: ResultPass,
			ValidatedAt: time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC), Notes: "Validation: Arena Quickstart Guide"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			v, err := Parse(readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if *v != tt.want {
				t.Errorf("\n got %+v\nwant %+v", *v, tt.want)
			}
		})
	}
}

func TestParseRejectsWhatIsNotAValidation(t *testing.T) {
	tests := map[string]string{
		"empty":              "",
		"plain trace":        "# Trace\n\n**Type:** knowledge\n\n## Work\n",
		"html":               "<html><body>404</body></html>",
		"not utf-8":          "validator: a\ntrace_hash: \xff",
		"bad score":          "validator: a\nresult: pass\n\nscores:\n  substance: lots\n",
		"bad total":          "validator: a\ntrace_hash: x\ntotal_score: many\n",
		"no result or total": "validator: a\ntrace_url: https://x/\n",
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			if v, err := Parse([]byte(data)); err == nil {
				t.Errorf("accepted as %+v", v)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	good := Validation{Validator: "a", TraceURL: "https://x/t.md", TraceHash: testHash, Result: ResultPass, Total: 18,
		Scores: Scores{3, 3, 3, 3, 3, 3}, HasScores: true}
	tests := []struct {
		name   string
		change func(v *Validation)
		want   string
	}{
		{"consistent", func(v *Validation) {}, ""},
		{"score above five", func(v *Validation) { v.Scores[0], v.Scores[1] = 6, 0 }, "substance score 6"},
		{"negative score", func(v *Validation) { v.Scores[5], v.Scores[0] = -1, 7 }, "freshness score -1"},
		{"total not the sum", func(v *Validation) { v.Total = 20 }, "not the sum"},
		{"total without scores out of range", func(v *Validation) { v.HasScores, v.Total = false, 31 }, "outside 0–30"},
		{"result contradicts total", func(v *Validation) { v.Result = ResultFail }, "does not match"},
		{"unknown result", func(v *Validation) { v.Result = "maybe" }, "neither pass nor fail"},
		{"short hash", func(v *Validation) { v.TraceHash = "sha256:abc" }, "trace_hash"},
		{"upper-case hash", func(v *Validation) { v.TraceHash = manifest.Hash(strings.ToUpper(testHash)) }, "trace_hash"},
		{"no validator", func(v *Validation) { v.Validator = "" }, "validator is missing"},
		{"no trace url", func(v *Validation) { v.TraceURL = "" }, "trace_url is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := good
			tt.change(&v)
			got := strings.Join(v.Check(), "; ")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("Check() = %q, want it to mention %q", got, tt.want)
			}
		})
	}
}

func TestResultForPassesAtEighteen(t *testing.T) {
	for total, want := range map[int]string{0: ResultFail, 17: ResultFail, 18: ResultPass, 30: ResultPass} {
		if got := ResultFor(total); got != want {
			t.Errorf("ResultFor(%d) = %s", total, got)
		}
	}
}

// TestIDNamesTheValidationFile: a trace's ID is its hash's first 12 hex
// digits, lower case, nothing else kept, and its validation file is
// val-<ID>.md, so the queue's items and the files they publish share one
// rule.
func TestIDNamesTheValidationFile(t *testing.T) {
	tests := map[string]string{
		testHash:                  "ca978112ca1b",
		strings.ToUpper(testHash): "ca978112ca1b",
		"sha256:../../etc/passwd": "ecad",
		"":                        "",
	}
	for in, want := range tests {
		if got := ID(manifest.Hash(in)); got != want {
			t.Errorf("ID(%q) = %q, want %q", in, got, want)
		}
		if got, want := FileName(manifest.Hash(in)), "val-"+want+".md"; got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScoresJSON(t *testing.T) {
	s := Scores{4, 3, 4, 4, 4, 3}
	out, err := json.Marshal(struct{ S Scores }{s})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"S":{"substance":4,"uniqueness":3,"specificity":4,"actionability":4,"structure":4,"freshness":3}}`
	if string(out) != want {
		t.Errorf("got %s", out)
	}
	tests := []struct {
		name, in string
		want     Scores
		ok       bool
	}{
		{"object", `{"substance":4,"uniqueness":3,"specificity":4,"actionability":4,"structure":4,"freshness":3}`, s, true},
		{"partial object", `{"Substance":5}`, Scores{5}, true},
		{"array", `[4,3,4,4,4,3]`, s, true},
		{"unknown dimension", `{"charm":5}`, Scores{}, false},
		{"string score", `{"substance":"4"}`, Scores{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Scores
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("got %v, %v", got, err)
			}
		})
	}
}

func TestDiagnoseNamesEveryProblemOnce(t *testing.T) {
	text := "validator: ada\nvalidator_url: https://ada.example.org/\ntrace_url: https://bob.example.org/t.md\n" +
		"trace_hash: sha256:" + strings.Repeat("a", 64) + "\nresult: pass\ntotal_score: 18\n\nscores:\n" +
		"  substance: x\n  uniqueness: 9\n  specificity: y\n  actionability: z\n  structure: w\n  freshness: v\n"
	v, problems := Diagnose([]byte(text))
	if v == nil {
		t.Fatal("Diagnose gave no validation")
	}
	want := []string{
		`substance: score "x" is not an integer`,
		`specificity: score "y" is not an integer`,
		`actionability: score "z" is not an integer`,
		`structure: score "w" is not an integer`,
		`freshness: score "v" is not an integer`,
		"uniqueness score 9 is outside 0–5",
	}
	if strings.Join(problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	if _, err := Parse([]byte(text)); err == nil || strings.Count(err.Error(), "validation:") != 1 {
		t.Errorf("Parse error %v, want one error naming every bad score, prefixed once", err)
	}
	if v, problems := Diagnose([]byte("# Notes\n\nhello\n")); v != nil || len(problems) != 1 || strings.HasPrefix(problems[0], "validation:") {
		t.Errorf("Diagnose of a non-validation: %v %q, want nil and one unprefixed reason", v, problems)
	}
}
