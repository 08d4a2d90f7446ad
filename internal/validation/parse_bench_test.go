package validation

import (
	"crypto/sha256"
	"fmt"
	"github.com/meshnode/meshnode/internal/cputime"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/manifest"
)

// ownFiles are n validation files as this node writes them (Format of a
// scored validation, notes cleaned as the heartbeat cleans them), each
// of a different trace.
func ownFiles(n int) [][]byte {
	files := make([][]byte, n)
	at := time.Date(2028, 6, 16, 0, 0, 0, 0, time.UTC)
	for i := range files {
		sum := sha256.Sum256(fmt.Appendf(nil, "trace %d", i))
		v := &Validation{
			Validator:    "bench",
			ValidatorURL: "https://bench.example/traces/",
			TraceURL:     fmt.Sprintf("https://agent-%d.example/traces/%03d-trace.md", i%10000, i%400),
			TraceHash:    manifest.Hash(fmt.Sprintf("sha256:%x", sum)),
			ValidatedAt:  at.Add(time.Duration(i) * time.Minute),
			Scores:       Scores{4, 3, 4, 3 + i%2, 3, 3},
			HasScores:    true,
			Notes:        CleanNotes(fmt.Sprintf("Scored by the simulation, round %d.\nSpecific enough to implement.", i)),
		}
		v.Total = v.Scores.Total()
		v.Result = ResultFor(v.Total)
		files[i] = v.Format()
	}
	return files
}

// corpusFiles are the real validation traces of the corpus, or nil when
// it is absent.
func corpusFiles(tb testing.TB) [][]byte {
	dir, ok := corpustest.Find()
	if !ok {
		return nil
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "traces", "*.md"))
	var files [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := Parse(data); err == nil {
			files = append(files, data)
		}
	}
	return files
}

// BenchmarkParse is Parse over the files a node reads for SIGNAL's input:
// "own", 1,000 files as this node writes them; "corpus", the real
// validation traces of ../shared/corpus/mycel-basecamp. One op is one file.
func BenchmarkParse(b *testing.B) {
	b.Run("own", func(b *testing.B) { benchParse(b, ownFiles(1000)) })
	b.Run("corpus", func(b *testing.B) {
		files := corpusFiles(b)
		if len(files) == 0 {
			b.Skip("no corpus validations: ../shared/corpus/mycel-basecamp beside the repository is absent (forks do not have it)")
		}
		benchParse(b, files)
	})
}

// benchParse parses files round, reporting besides the wall time the CPU
// time of the process per file, the collector's included, which a machine
// shared with other jobs disturbs less.
func benchParse(b *testing.B, files [][]byte) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Used()
	for i := range b.N {
		if _, err := Parse(files[i%len(files)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cputime.Used()-cpu)/float64(b.N), "cpu-ns/op")
}
