package score

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/validation"
)

var testNow = time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func input(raw []byte, known ...Known) Input {
	return Input{
		Record: ledger.Trace{Hash: manifest.HashBytes(raw), Agent: "example", Seq: 1, Type: "knowledge", Submitted: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)},
		Raw:    raw, Now: testNow, Known: known,
	}
}

func score(t *testing.T, in Input) *Result {
	t.Helper()
	r, err := Heuristic{}.Score(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHeuristicScoresRichAndEmptyTraces(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		min, max int
	}{
		{"rich trace with data, steps and all sections passes", "rich.md", 24, 30},
		{"placeholder trace scores near zero", "empty.md", 0, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := score(t, input(readTestdata(t, tt.file)))
			if got := Total(r.Scores); got < tt.min || got > tt.max {
				t.Errorf("total %d, want %d–%d; scores %v, reasons %q", got, tt.min, tt.max, r.Scores, r.Reasons)
			}
		})
	}
}

func TestHeuristicGivesReasonsForEveryDimension(t *testing.T) {
	for _, f := range []string{"rich.md", "empty.md"} {
		t.Run(f, func(t *testing.T) {
			r := score(t, input(readTestdata(t, f)))
			for i, d := range validation.Dimensions {
				if len(r.Reasons[i]) == 0 {
					t.Errorf("%s: no reasons", d)
				}
			}
			if r.Notes == "" || strings.Contains(r.Notes, "\n") {
				t.Errorf("notes %q: want one non-empty line", r.Notes)
			}
		})
	}
}

func TestHeuristicIsDeterministic(t *testing.T) {
	raw := readTestdata(t, "rich.md")
	known := []Known{{Hash: "sha256:b", Agent: "x", Fingerprint: 1}, {Hash: "sha256:a", Agent: "y", Fingerprint: 2}}
	first := score(t, input(raw, known...))
	for i := 0; i < 20; i++ {
		again := score(t, input(raw, known...))
		if again.Scores != first.Scores || again.Notes != first.Notes {
			t.Fatalf("run %d: %v %q, first %v %q", i, again.Scores, again.Notes, first.Scores, first.Notes)
		}
	}
}

func TestHeuristicNearDuplicateLosesUniqueness(t *testing.T) {
	raw := readTestdata(t, "rich.md")
	edited := []byte(strings.Replace(string(raw), "40 publishes", "41 publishes", 1))
	body := stripFrontMatter(raw)
	tests := []struct {
		name  string
		known []Known
		max   int
		says  string
	}{
		{"copy of another agent's trace scores 0", []Known{{Hash: "sha256:other", Agent: "thief", Fingerprint: Fingerprint(body)}}, 0, "another agent's"},
		{"republished own trace scores 0", []Known{{Hash: "sha256:old", Agent: "example", Fingerprint: Fingerprint(body)}}, 0, "same agent's"},
		{"unrelated known trace changes nothing", []Known{{Hash: "sha256:x", Agent: "x", Fingerprint: Fingerprint(readTestdata(t, "empty.md"))}}, 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := score(t, input(edited, tt.known...))
			u := r.Scores[1]
			if u > tt.max {
				t.Errorf("uniqueness %d, want at most %d (%q)", u, tt.max, r.Reasons[1])
			}
			if tt.says != "" && !strings.Contains(strings.Join(r.Reasons[1], " "), tt.says) {
				t.Errorf("reasons %q do not say %q", r.Reasons[1], tt.says)
			}
			if tt.says == "" && u < 3 {
				t.Errorf("uniqueness %d for an original trace", u)
			}
		})
	}
}

func TestHeuristicFreshnessFollowsAge(t *testing.T) {
	raw := readTestdata(t, "rich.md")
	tests := []struct {
		name      string
		submitted time.Time
		want      int
	}{
		{"two days old and citing", testNow.Add(-48 * time.Hour), 5},
		{"ten days old", testNow.Add(-10 * 24 * time.Hour), 3},
		{"a year old", testNow.Add(-365 * 24 * time.Hour), 0},
		{"dated in the future", testNow.Add(72 * time.Hour), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(raw)
			in.Record.Submitted = tt.submitted
			if got := score(t, in).Scores[5]; got != tt.want {
				t.Errorf("freshness %d, want %d", got, tt.want)
			}
		})
	}
}

func TestFingerprintDistance(t *testing.T) {
	a := readTestdata(t, "rich.md")
	b := []byte(strings.Replace(string(a), "CDN", "cache", 1))
	tests := []struct {
		name     string
		x, y     []byte
		min, max int
	}{
		{"same text", a, a, 0, 0},
		{"one word changed", a, b, 0, DefaultParams.NearCopyDistance},
		{"unrelated texts", a, readTestdata(t, "empty.md"), DefaultParams.SimilarDistance + 1, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := Distance(Fingerprint(tt.x), Fingerprint(tt.y)); d < tt.min || d > tt.max {
				t.Errorf("distance %d, want %d–%d", d, tt.min, tt.max)
			}
		})
	}
}

func FuzzHeuristic(f *testing.F) {
	f.Add(readTestdata(f, "rich.md"))
	f.Add(readTestdata(f, "empty.md"))
	f.Add([]byte("---\ntitle: x\n---\n**Date:** 2026-13-99\n## Work\n```\nunclosed"))
	if dir, ok := corpustest.Find(); ok {
		files, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "00*.md"))
		for _, file := range files {
			if raw, err := os.ReadFile(file); err == nil {
				f.Add(raw)
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := Heuristic{}.Score(context.Background(), input(raw))
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range r.Scores {
			if s < 0 || s > validation.MaxScore {
				t.Fatalf("%s = %d out of range", validation.Dimensions[i], s)
			}
			if len(r.Reasons[i]) == 0 {
				t.Fatalf("%s: no reasons", validation.Dimensions[i])
			}
		}
	})
}

func TestHeuristicFailsThinNotesAndNearCopies(t *testing.T) {
	rich := readTestdata(t, "rich.md")
	thin := []byte("---\nagent: example\ndate: 2026-03-10\ntype: knowledge\ncategory: rock\n---\n# Build mesh tool\n\n" +
		"## Work\nA dashboard showing identity, manifest and inbox, see ada/1 and ada/2.\n\n## Evidence\nbin/status.ts\n\n## Connections\n- ada/1\n")
	tests := []struct {
		name  string
		in    Input
		says  string
		dimen int
	}{
		{"a thin note with every section and citation", input(thin), "thin note", 2},
		{"a near-copy of a rich trace", input(rich, Known{Hash: "sha256:orig", Agent: "other", Fingerprint: Fingerprint(stripFrontMatter(rich))}), "near-copy", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := score(t, tt.in)
			if got := Total(r.Scores); got >= validation.PassThreshold {
				t.Errorf("total %d passes; scores %v", got, r.Scores)
			}
			if !strings.Contains(strings.Join(r.Reasons[tt.dimen], " "), tt.says) {
				t.Errorf("%s reasons %q do not say %q", validation.Dimensions[tt.dimen], r.Reasons[tt.dimen], tt.says)
			}
		})
	}
}

// salad writes a trace with the three v0.2 sections whose prose is n
// words of random syllables and figures; every glue-th word is "the" when
// glue > 0.
func salad(n, glue int) []byte {
	rng := rand.New(rand.NewPCG(12, 0))
	syll := []string{"tu", "vi", "zo", "la", "so", "de", "fo", "ra", "ka", "mi", "ne", "pe"}
	var b strings.Builder
	b.WriteString("---\nagent: mallory\ndate: 2026-03-10\ntype: knowledge\ncategory: rock\n---\n# Zorbing the flux\n\n## Work\n\n")
	for i := 1; i <= n; i++ {
		switch {
		case glue > 0 && i%glue == 0:
			b.WriteString("the")
		case rng.IntN(8) == 0:
			fmt.Fprintf(&b, "%d", rng.IntN(1000))
		default:
			for range 1 + rng.IntN(3) {
				b.WriteString(syll[rng.IntN(len(syll))])
			}
		}
		b.WriteString(" ")
		if i%60 == 0 {
			b.WriteString(".\n\n")
		}
		if i == n*2/3 {
			b.WriteString("\n\n## Evidence\n\n")
		}
	}
	b.WriteString("\n\n## Connections\n\n- kestrel/12\n- heron/7\n")
	return []byte(b.String())
}

func TestHeuristicFailsWordSalad(t *testing.T) {
	r := score(t, input(salad(740, 0)))
	if got := Total(r.Scores); got >= validation.PassThreshold {
		t.Errorf("740 words of random syllables score %d, a pass; scores %v, reasons %q", got, r.Scores, r.Reasons)
	}
	for _, d := range []int{0, 1, 2, 3} {
		if !strings.Contains(strings.Join(r.Reasons[d], " "), "not prose") {
			t.Errorf("%s reasons %q do not say it is not prose", validation.Dimensions[d], r.Reasons[d])
		}
	}
	// The same text with a common word in every ten is past the guard:
	// it is the share of common words that decides, not the syllables.
	glued := score(t, input(salad(740, 10)))
	for d, why := range glued.Reasons {
		if strings.Contains(strings.Join(why, " "), "not prose") {
			t.Errorf("with 10 %% common words, %s still says not prose: %q", validation.Dimensions[d], why)
		}
	}
	if rich := score(t, input(readTestdata(t, "rich.md"))); strings.Contains(fmt.Sprint(rich.Reasons), "not prose") {
		t.Errorf("rich.md read as word salad: %q", rich.Reasons)
	}
}

func TestHeuristicCountsCodeExamplesAsSubstance(t *testing.T) {
	prose := "# Guide to the endpoints\n\nThis guide documents the endpoints I tested, with the request and the answer of each one as the server gave them.\n\n"
	example := "## Submit\n\n```\nPOST /doorman/validation\n{\"author\": \"ada\", \"validator\": \"bob\", \"traceId\": \"016\", \"verdict\": \"VALID\", \"summary\": \"what you checked and how\"}\n```\n\n"
	guide := []byte(prose + strings.Repeat(example, 4))
	essay := []byte(prose)
	g, e := score(t, input(guide)), score(t, input(essay))
	if g.Scores[0] <= e.Scores[0] || g.Scores[3] <= e.Scores[3] {
		t.Errorf("guide substance %d actionability %d, prose alone %d %d: code examples must count", g.Scores[0], g.Scores[3], e.Scores[0], e.Scores[3])
	}
	if !strings.Contains(strings.Join(g.Reasons[3], " "), "worked examples") {
		t.Errorf("actionability reasons %q do not name the worked examples", g.Reasons[3])
	}
}

// TestSubstanceAndStructureAgreeOnTheEvidenceSection checks that a
// heading substance reads as evidence but structure does not count as the
// v0.2 section is named as such, so --explain does not contradict itself.
func TestSubstanceAndStructureAgreeOnTheEvidenceSection(t *testing.T) {
	body := "# Notes\n\n## Work\n\nWe ran the cache for 3 days on 2 nodes and saw 41 misses.\n\n## %s\n\n" +
		"Misses fell from 41 to 7 after the 2nd change, and p99 from 180 ms to 95 ms.\n\n## Connections\n\n- ada/1\n"
	tests := []struct {
		heading, substance string
		missing            bool
	}{
		{"Evidence", "Evidence section", false},
		{"What Happened", `evidence-like section "what happened" (not the v0.2 ## Evidence)`, true},
	}
	for _, tt := range tests {
		r := score(t, input([]byte(fmt.Sprintf(body, tt.heading))))
		if !slices.Contains(r.Reasons[0], tt.substance) {
			t.Errorf("%s: substance reasons %q, want %q", tt.heading, r.Reasons[0], tt.substance)
		}
		if got := strings.Contains(strings.Join(r.Reasons[4], " "), "## Evidence"); got != tt.missing {
			t.Errorf("%s: structure reasons %q: missing ## Evidence is %v, want %v", tt.heading, r.Reasons[4], got, tt.missing)
		}
	}
}
