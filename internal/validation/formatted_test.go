package validation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// referenceParse is Parse without its fast path: every input read by the
// general parse, as Parse read all of them before parseFormatted.
func referenceParse(data []byte) (*Validation, error) {
	if !utf8.Valid(data) {
		return nil, errorf("not utf-8 text")
	}
	v, problems := parseGeneral(strings.TrimPrefix(string(data), "\ufeff"))
	if len(problems) > 0 {
		return nil, errorf("%s", strings.Join(problems, "; "))
	}
	return v, nil
}

// formattedCases are validations as the node writes them, and at the
// edges of what Format writes.
func formattedCases() map[string]*Validation {
	scored := func(v Validation, s Scores) *Validation {
		v.SetScores(s)
		return &v
	}
	at := time.Date(2028, 6, 16, 12, 30, 0, 0, time.UTC)
	return map[string]*Validation{
		"scored pass": scored(Validation{Validator: "bench", ValidatorURL: "https://bench.example/traces/",
			TraceURL: "https://a.example/traces/001-trace.md", TraceHash: testHash, ValidatedAt: at,
			Notes: "Scored by the simulation."}, Scores{4, 3, 4, 3, 3, 3}),
		"scored fail": scored(Validation{Validator: "bench", TraceURL: "https://a.example/t.md", TraceHash: testHash,
			ValidatedAt: at.Add(250 * time.Millisecond)}, Scores{0, 1, 2, 3, 4, 5}),
		"verdict and total only": {Validator: "rex", TraceURL: "https://a.example/t.md", TraceHash: testHash,
			Result: ResultPass, Total: 25},
		"every field empty":   {Result: ResultFail},
		"scores out of range": scored(Validation{Validator: "x"}, Scores{-3, 9, 0, 0, 0, 100}),
		"notes cut and not ascii": scored(Validation{Validator: "émile", TraceURL: "https://a.example/ü.md",
			TraceHash: "sha256:not-a-hash", Notes: CleanNotes(strings.Repeat("Ça marche\u00a0 très\tbien.\n", 40))},
			Scores{5, 5, 5, 5, 5, 5}),
		"malformed hash kept": {Validator: "v", TraceHash: "SHA256:CA978112", Result: "maybe", Total: 7},
	}
}

// TestParseFormattedReadsWhatFormatWrites checks that every file Format
// writes takes the fast path, and that it reads the record the general
// parse reads.
func TestParseFormattedReadsWhatFormatWrites(t *testing.T) {
	for name, v := range formattedCases() {
		t.Run(name, func(t *testing.T) {
			data := v.Format()
			got, ok := parseFormatted(string(data))
			if !ok {
				t.Fatalf("declined\n%s", data)
			}
			want, err := referenceParse(data)
			if err != nil {
				t.Fatal(err)
			}
			if *got != *want {
				t.Errorf("\n got %+v\nwant %+v", *got, *want)
			}
		})
	}
}

// TestParseFormattedDeclinesWhatFormatDoesNotWrite checks that a file
// laid out otherwise, or whose score or total does not parse, is left to
// the general parse, which reads it as before and words the error.
func TestParseFormattedDeclinesWhatFormatDoesNotWrite(t *testing.T) {
	own := string(ownFiles(1)[0])
	tests := map[string]string{
		"crlf":                    strings.ReplaceAll(own, "\n", "\r\n"),
		"no final newline":        strings.TrimSuffix(own, "\n"),
		"a line after the notes":  own + "extra: 1\n",
		"tab after a colon":       strings.Replace(own, "validator: ", "validator:\t", 1),
		"keys out of order":       swapLines(own, 2, 3),
		"a score that is a word":  strings.Replace(own, "  substance: 4", "  substance: four", 1),
		"a total that is a word":  strings.Replace(own, "total_score: 20", "total_score: twenty", 1),
		"no total and no scores":  "# VALIDATION\n\nvalidator: a\nvalidator_url:\ntrace_url:\ntrace_hash:\nvalidated_at:\nresult:\ntotal_score:\n\nnotes:\n",
		"dimensions out of order": swapLines(own, 12, 13),
		"the seed's variant":      string(readTestdata(t, "canonical-variant.md")),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			if v, ok := parseFormatted(data); ok {
				t.Fatalf("accepted as %+v\n%s", *v, data)
			}
			sameParse(t, []byte(data))
		})
	}
}

// swapLines swaps lines i and j of s, counted from 0.
func swapLines(s string, i, j int) string {
	lines := strings.Split(s, "\n")
	lines[i], lines[j] = lines[j], lines[i]
	return strings.Join(lines, "\n")
}

// sameParse fails when Parse and the general parse alone disagree on
// data, in the record or in the error.
func sameParse(t *testing.T, data []byte) {
	t.Helper()
	got, gotErr := Parse(data)
	want, wantErr := referenceParse(data)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("error %v, the general parse's %v\n%q", gotErr, wantErr, data)
	}
	if (got == nil) != (want == nil) || got != nil && *got != *want {
		t.Fatalf("\n got %+v\nwant %+v\n%q", got, want, data)
	}
}

// FuzzParseFormattedMatchesGeneral checks that Parse, fast path and all,
// returns for every input the record and error the general parse alone
// returns, and that whatever Format writes takes the fast path.
func FuzzParseFormattedMatchesGeneral(f *testing.F) {
	for _, data := range parseSeeds(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameParse(t, data)
		if v, err := Parse(data); err == nil {
			if out := v.Format(); !formatted(out) {
				t.Fatalf("Format's output declined by the fast path\n%s", out)
			}
		}
	})
}

func formatted(data []byte) bool {
	_, ok := parseFormatted(string(data))
	return ok
}

// parseSeeds are FuzzParse's seeds, files as the node writes them, the
// corpus's validation traces when it is present, and formatted files
// bent at each place the fast path checks.
func parseSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	paths, _ := filepath.Glob("testdata/*.md")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	seeds = append(seeds, ownFiles(5)...)
	seeds = append(seeds, corpusFiles(tb)...)
	if _, ok := corpustest.Find(); !ok {
		tb.Log("real-mesh corpus not found at ../shared/corpus/mycel-basecamp beside the repository: fuzzing without its validations")
	}
	for _, v := range formattedCases() {
		seeds = append(seeds, v.Format())
	}
	own := string(ownFiles(1)[0])
	for _, bent := range []string{
		"\ufeff" + own,
		strings.ReplaceAll(own, "\n", "\r\n"),
		strings.Replace(own, "Scored", "Scored\r by", 1),
		strings.Replace(own, "validator: bench", "validator:  bench  \v", 1),
		strings.Replace(own, "notes: ", "notes:\u0085\u3000", 1),
		strings.Replace(own, "  freshness: 3", "  freshness: 3/5", 1),
		strings.Replace(own, "  freshness: 3", "  freshness: **3**", 1),
		strings.Replace(own, "total_score: 20", "total_score:", 1),
		strings.Replace(own, "result: pass", "result:", 1),
		strings.Replace(own, "\nscores:\n", "\nscores: \n", 1),
		strings.Replace(own, "# VALIDATION", "# Validation", 1),
		own[:strings.Index(own, "\nscores:")] + "\n\nnotes:\n",
	} {
		seeds = append(seeds, []byte(bent))
	}
	return seeds
}

// TestParseReadsAFileAsFormatWritesItInTwoAllocations checks that a file
// as the node writes it costs Parse the file's text and the record, and
// nothing else: a heartbeat parses 55,000 of them after three years, and
// the general parse made some 70 allocations for each.
func TestParseReadsAFileAsFormatWritesItInTwoAllocations(t *testing.T) {
	data := ownFiles(1)[0]
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Parse(data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("Parse made %v allocations, want 2: the text and the record", allocs)
	}
}
