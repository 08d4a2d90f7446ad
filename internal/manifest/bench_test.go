package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// BenchmarkParseLargestCorpusManifest measures Parse on newagent2's
// manifest (246 rows, the largest real one).
func BenchmarkParseLargestCorpusManifest(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpustest.Dir(b), "agents-hosted", "newagent2", "MANIFEST.md"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
