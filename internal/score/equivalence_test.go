package score

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/slowtest"
	"github.com/meshnode/meshnode/internal/trace"
)

// wideParams look for copies much farther than the defaults, so the
// corpus test also covers a search bound other than theirs.
var wideParams = func() Params {
	p := DefaultParams
	p.NearCopyDistance, p.SimilarDistance = 20, 30
	return p
}()

// TestHeuristicMatchesReferenceOnCorpus checks that every trace of the
// real-mesh snapshot gets exactly the Result (scores, reasons, notes) the
// reference heuristic gives it, knowing the whole corpus, with the
// default knobs and with a grid of two.
func TestHeuristicMatchesReferenceOnCorpus(t *testing.T) {
	slowtest.Require(t)
	ins := corpusInputs(t)
	grids := [][]*Params{{&DefaultParams}, {&DefaultParams, &wideParams}}
	near, similar := 0, 0
	for _, in := range ins {
		body := traceBody(in)
		if got, want := analyze(string(body)), referenceAnalyze(string(body)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: features differ from the reference:\n got %+v\nwant %+v", in.Record.File, *got, *want)
			continue
		}
		nearest, dist := referenceNearest(in, Fingerprint(body))
		if dist <= DefaultParams.NearCopyDistance {
			near++
		}
		if dist <= DefaultParams.SimilarDistance {
			similar++
		}
		for _, ps := range grids {
			got, err := ScoreEach(context.Background(), in, ps)
			if err != nil {
				t.Fatal(err)
			}
			ref := judgeOf(in, body, referenceAnalyze(string(body)), nearest, dist)
			for i, p := range ps {
				if want := ref.result(p); !reflect.DeepEqual(got[i], want) {
					t.Errorf("%s/%s, knobs %d of %d:\n got %v %q\nwant %v %q", in.Record.Agent, in.Record.File, i, len(ps),
						got[i].Scores, got[i].Reasons, want.Scores, want.Reasons)
				}
			}
		}
	}
	t.Logf("%d traces scored as the reference scores them; %d near copies, %d mostly the same text", len(ins), near, similar)
}

// TestNearestKnownMatchesReference checks the bounded search against the
// full one on random known sets with near copies, ties, zero
// fingerprints and the trace itself among them: the same trace and
// distance whenever it is within the bound, nothing otherwise.
func TestNearestKnownMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 2000 {
		fp := trace.Fingerprint(rng.Uint64())
		in := Input{Record: ledger.Trace{Hash: "sha256:self"}}
		for i := range rng.IntN(40) {
			k := Known{Hash: manifest.Hash(fmt.Sprintf("sha256:%02d", rng.IntN(30))), Fingerprint: trace.Fingerprint(rng.Uint64())}
			switch rng.IntN(5) {
			case 0: // a near copy: a few bits flipped
				k.Fingerprint = fp
				for range rng.IntN(14) {
					k.Fingerprint ^= 1 << rng.IntN(64)
				}
			case 1:
				k.Fingerprint = 0
			case 2:
				if i%3 == 0 {
					k.Hash = in.Record.Hash
				}
			}
			in.Known = append(in.Known, k)
		}
		wantK, wantD := referenceNearest(in, fp)
		for _, within := range []int{-1, 0, 6, 12, 30, 64, 100} {
			gotK, gotD := nearestKnown(in, fp, within)
			if wantD > within {
				wantK, wantD := Known{}, 65
				if gotK != wantK || gotD != wantD {
					t.Fatalf("round %d, within %d: got %v at %d, want nothing (nearest is at %d)", round, within, gotK, gotD, wantD)
				}
				continue
			}
			if gotK != wantK || gotD != wantD {
				t.Fatalf("round %d, within %d: got %v at %d, want %v at %d", round, within, gotK, gotD, wantK, wantD)
			}
		}
	}
}

// tokenSeeds are lines that sit on the edges of the token matchers.
var tokenSeeds = []string{
	"", "v1.2", "v1.2.3", "v1.2.3a", "v1.2.x", "v1.2._", "v12", "xv1.2", "v1.2.3.4",
	"HTTP", "HTTPS", "HTTPSTOO", "ABC_", "AB", "ÉTAT API", "GitHub", "GitHub_x", "iPhone", "A1B", "Ab", "McDonald's",
	"see /a/b", "see /a/b/", "(/a/b.c)", "`/x/y:z`", "/a/.-/b_", "/a/b/..", " /a/b/.", "/a/b/.c", "/a/b./",
	"x.md", "x.json", "x.jsonl", "x.js_", "a-b_c.toml", "(x.go)", "`x.yaml`", " .md", "x.md.go",
	"curl -s", "curl  x", "$ ls", "GET /a", "GET a", "go test", "gopher x", "python3 x.py", "pythons x", "sh<x", "sh <x",
	" --flag", "--flag", "x --f", "x --fo", "x ---", "\t--ab", "\f--ab \vgo x",
	"2026-03-12", "x2026-03-12", "2026-03-129", "2026-13-12", "2026-03-42", "2020-01-01-2021-01-01",
	"12", "1,234.5%", "a1", "_1", "1.2.3.", "50% of 7", "٣ and ²",
	"word-ish don't l’été 123abc", "\xff\xfe abc \xc3", "seq 5", "ſeq 5", "Trace #12", "agent's trace 010", "ada/12", "a/12345", "Ada/12", "x-/1", "ab/1_", "SEQ #3", "TRACE 7", "x's trace 1", "ada ſeq 2", "ada's SEQ #3", "bob’s Trace 010",
	"https://x.example/a/b.md (x.md) 2026-01-02 v2.0 --yes",
}

// fuzzSeeds adds tokenSeeds and the lines of the test traces to f.
func fuzzSeeds(f *testing.F) {
	for _, s := range tokenSeeds {
		f.Add(s)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			f.Add(line)
		}
	}
}

// matchBounds lists where next matches in s, in order.
func matchBounds(s string, next func(string, int) (int, int)) [][]int {
	var out [][]int
	for from := 0; ; {
		i, e := next(s, from)
		if i < 0 {
			return out
		}
		if e <= i || i < from {
			panic(fmt.Sprintf("matcher returned [%d,%d) searching from %d", i, e, from))
		}
		out = append(out, []int{i, e})
		from = e
	}
}

// checkMatcher fails when next does not find what group of re finds in s.
func checkMatcher(t *testing.T, s string, next func(string, int) (int, int), re *regexp.Regexp, group int) {
	t.Helper()
	var want [][]int
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		want = append(want, m[2*group:2*group+2])
	}
	if got := matchBounds(s, next); !reflect.DeepEqual(got, want) {
		t.Errorf("%q: matches %v, the reference %s finds %v", s, got, re, want)
	}
}

func FuzzWordMatcher(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkMatcher(t, s, nextWord, refWordRe, 0)
		if got, want := countWords(s), len(refWordRe.FindAllString(s, -1)); got != want {
			t.Errorf("%q: countWords %d, reference %d", s, got, want)
		}
		if got, want := firstWord(s), refWordRe.FindString(s); got != want {
			t.Errorf("%q: firstWord %q, reference %q", s, got, want)
		}
	})
}

func FuzzNumberMatcher(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) { checkMatcher(t, s, nextNumber, refNumberRe, 0) })
}

func FuzzDateMatcher(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkMatcher(t, s, nextDate, refDateRe, 0)
		if got, want := withoutDates(s), refDateRe.ReplaceAllString(s, " "); got != want {
			t.Errorf("%q: withoutDates %q, reference %q", s, got, want)
		}
	})
}

func FuzzNamedMatcher(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) { checkMatcher(t, s, nextNamed, refNamedRe, 0) })
}

func FuzzPathMatcher(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) { checkMatcher(t, s, nextPath, refPathRe, 1) })
}

func FuzzCiteMatcher(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		var got, want [][]int
		for from := 0; ; {
			i, slash, e := nextCite(s, from)
			if i < 0 {
				break
			}
			if !(from <= i && i < slash && slash < e) {
				t.Fatalf("%q: nextCite from %d returned %d, %d, %d", s, from, i, slash, e)
			}
			got = append(got, []int{i, e, i, slash, slash + 1, e})
			from = e
		}
		want = refCiteRe.FindAllStringSubmatchIndex(s, -1)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: citations %v, the reference finds %v", s, got, want)
		}
	})
}

func FuzzCommandMatcher(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isCommand(s), refCommandRe.MatchString(s); got != want {
			t.Errorf("%q: isCommand %v, reference %v", s, got, want)
		}
	})
}

// FuzzCiteInWordsFilter checks that the filter never skips a line the
// citation regexp would match.
func FuzzCiteInWordsFilter(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if refWordCiteRe.MatchString(s) && !mayCiteInWords(s) {
			t.Errorf("%q: filtered out, but it holds the citation %q", s, refWordCiteRe.FindString(s))
		}
	})
}

// FuzzAnalyzeMatchesReference checks whole bodies: the matchers and the
// filters that skip regexps, together.
func FuzzAnalyzeMatchesReference(f *testing.F) {
	fuzzSeeds(f)
	f.Add(strings.Join(tokenSeeds, "\n"))
	f.Fuzz(func(t *testing.T, body string) {
		if got, want := analyze(body), referenceAnalyze(body); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", body, *got, *want)
		}
	})
}

// BenchmarkNearestKnown20000 looks up the nearest of 20,000 known traces,
// with the bounded search and with the reference's full one.
func BenchmarkNearestKnown20000(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 5))
	in := Input{Record: ledger.Trace{Hash: "sha256:self"}}
	for range 20000 {
		in.Known = append(in.Known, Known{Hash: manifest.Hash("sha256:" + randomHex(rng)), Fingerprint: trace.Fingerprint(rng.Uint64())})
	}
	fps := make([]trace.Fingerprint, 256)
	for i := range fps {
		fps[i] = trace.Fingerprint(rng.Uint64())
	}
	within := copyDistance([]*Params{&DefaultParams})
	b.Run("bounded", func(b *testing.B) {
		for i := range b.N {
			nearestKnown(in, fps[i%len(fps)], within)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for i := range b.N {
			referenceNearest(in, fps[i%len(fps)])
		}
	})
}
