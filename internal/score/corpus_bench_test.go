package score

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/trace"
)

// This file uses only what the package has exported since the heuristic
// was written (Heuristic, Input, Known, Fingerprint, stripFrontMatter), so
// it builds unchanged against an older revision: docs/scoring.md compares
// two such builds side by side.

// corpusNow is the scoring time of the corpus benchmarks and tests.
var corpusNow = time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)

// corpusInputs reads every trace of the real-mesh snapshot as the
// heartbeat would score it, each knowing every other trace of the corpus;
// it skips when the snapshot is absent (forks do not have it).
func corpusInputs(tb testing.TB) []Input {
	tb.Helper()
	dir := corpustest.Dir(tb)
	files, err := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "*.md"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatalf("no traces under %s", dir)
	}
	sort.Strings(files)
	ins := make([]Input, 0, len(files))
	known := make([]Known, 0, len(files))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		agent := filepath.Base(filepath.Dir(filepath.Dir(f)))
		in := Input{
			Record: ledger.Trace{Hash: manifest.HashBytes(raw), Agent: agent, File: filepath.Base(f)}, Raw: raw, Now: corpusNow,
		}
		body := stripFrontMatter(raw)
		if t, err := trace.Parse(raw); err == nil {
			in.Trace = t
			if len(t.Body) > 0 {
				body = t.Body
			}
		}
		ins = append(ins, in)
		known = append(known, Known{Hash: in.Record.Hash, Agent: agent, Fingerprint: Fingerprint(body)})
	}
	for i := range ins {
		ins[i].Known = known
	}
	return ins
}

// withMoreKnown returns ins knowing n traces: the corpus's own and random
// fingerprints for the rest, as a node that has polled a big mesh.
func withMoreKnown(ins []Input, n int) []Input {
	known := append([]Known(nil), ins[0].Known...)
	rng := rand.New(rand.NewPCG(11, 0))
	for len(known) < n {
		known = append(known, Known{Hash: manifest.Hash("sha256:" + randomHex(rng)), Agent: "synthetic", Fingerprint: trace.Fingerprint(rng.Uint64() | 1)})
	}
	out := append([]Input(nil), ins...)
	for i := range out {
		out[i].Known = known
	}
	return out
}

func randomHex(rng *rand.Rand) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 64)
	for i := range b {
		b[i] = digits[rng.IntN(16)]
	}
	return string(b)
}

func benchmarkScore(b *testing.B, ins []Input) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, in := range ins {
			if _, err := (Heuristic{}).Score(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ins)), "ns/trace")
}

// BenchmarkScoreCorpus scores every trace of the corpus (856 in the
// snapshot) with the heuristic, each knowing the whole corpus: one
// iteration is the scoring of a catch-up.
func BenchmarkScoreCorpus(b *testing.B) {
	benchmarkScore(b, corpusInputs(b))
}

// BenchmarkScoreCorpusKnown20000 scores the corpus against 20,000 known
// traces, where comparing fingerprints with every known one shows.
func BenchmarkScoreCorpusKnown20000(b *testing.B) {
	benchmarkScore(b, withMoreKnown(corpusInputs(b), 20000))
}
