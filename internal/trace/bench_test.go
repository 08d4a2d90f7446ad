package trace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// BenchmarkParseCorpusTraces measures Parse over every real trace.
func BenchmarkParseCorpusTraces(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(b), "agents-hosted", "*", "traces", "*.md"))
	var all [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, data)
		size += len(data)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, data := range all {
			if _, err := Parse(data); err != nil {
				b.Fatal(err)
			}
		}
	}
}
